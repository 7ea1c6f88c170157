// The fused version as GPT computes it, one function per lecture step:
// project -> split -> attend -> merge -> out-project.
#pragma once

#include "attention_head.hpp"
#include "config.hpp"

namespace headwise {

struct ProjectionWeights {
  const float* wq;
  const float* wk;
  const float* wv;
  const float* bq;  // biases may be null
  const float* bk;
  const float* bv;
};

// x (B*T, d_model) -> q, k, v (B*T, H*hd): one large product each.
void project(const Dims& d, const ProjectionWeights& w, const float* x, float* q, float* k,
             float* v);

// (B, T, H*hd) viewed as (B, T, H, hd), then transpose(1, 2) copied out as (B, H, T, hd).
void split_heads(const Dims& d, const float* in, float* out);

// Every (batch, head) pair attends on its own (attend_head_f32), with the position kind's score
// bias if it has one (ALiBi). scores/attention may be null: then, without a bias, the tiled
// kernel runs and no (T, T) array exists anywhere (memory linear in T).
void attend(const Dims& d, const float* q_heads, const float* k_heads, const float* v_heads,
            HeadScratch scratch, float* context_heads, float* scores, float* attention);

// (B, H, T, hd) transposed back to (B, T, H, hd), viewed as (B, T, H*hd).
void merge_heads(const Dims& d, const float* in, float* out);

// concat (B*T, H*hd) @ W_out (H*hd, d_model) + b_out -> (B*T, d_model).
void out_project(const Dims& d, const float* w_out, const float* b_out, const float* concat,
                 float* out);

}  // namespace headwise
