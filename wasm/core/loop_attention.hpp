// The loop version, as the lecture builds it first: H copies of one causal attention head, each
// with its own Wq, Wk, Wv (a d_model x hd column slice), run one after another; their contexts
// are concatenated and multiplied by W_out.
#pragma once

#include "attention_head.hpp"
#include "config.hpp"
#include "fused_steps.hpp"

namespace headwise {

struct LoopBuffers {
  float* q_heads;  // (B, H, T, hd): each head writes its own q, k, v here
  float* k_heads;
  float* v_heads;
  float* concat;     // (B, T, H*hd): each head writes its context into its own columns
  float* scores;     // optional (B, H, T, T)
  float* attention;  // optional (B, H, T, T)
};

void forward_loop(const Dims& d, const ProjectionWeights& w, const float* w_out, const float* b_out,
                  const float* x, HeadScratch scratch, LoopBuffers buffers, float* out);

}  // namespace headwise
