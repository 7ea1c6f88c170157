// The loop version, as the lecture builds it first: H copies of one causal attention head, each
// with its own Wq, Wk, Wv (a d_model x hd column slice), run one after another; their contexts
// are concatenated and multiplied by W_out. Positions that act inside attention (RoPE, ALiBi)
// are the operator's (layers/attention.hpp) alone: the loop version refuses them.
#pragma once

#include "layers/attention.hpp"

namespace headwise {

// Each head writes its own q, k, v into t.q_heads, t.k_heads, t.v_heads (B, H, T, hd), its
// context into its columns of t.concat, and its scores and attention if t keeps them.
void forward_loop(const layers::AttentionShape& s, const layers::AttentionParams& w, const float* x,
                  const layers::AttentionTensors& t, float* out);

}  // namespace headwise
