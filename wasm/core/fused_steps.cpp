#include "fused_steps.hpp"

#include "attention_lanes.hpp"
#include "gemm_f32.hpp"
#include "layers/positions/position_kind.hpp"
#include "plain_loops.hpp"

namespace headwise {

void project(const Dims& d, const ProjectionWeights& w, const float* x, float* q, float* k,
             float* v) {
  const MatrixView input{x, d.d_model};
  gemm_f32(d.rows(), d.concat, d.d_model, input, {w.wq, d.concat}, w.bq, q, d.concat);
  gemm_f32(d.rows(), d.concat, d.d_model, input, {w.wk, d.concat}, w.bk, k, d.concat);
  gemm_f32(d.rows(), d.concat, d.d_model, input, {w.wv, d.concat}, w.bv, v, d.concat);
}

namespace {

inline void copy_row(const float* from, float* to, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) to[i] = from[i];
}

}  // namespace

// split_heads and merge_heads copy rows of head_dim floats (3 in the lecture's sweep of 4000 heads,
// 144,000 rows per split there): plain loops, not a memcpy call per row.
HEADWISE_PLAIN_LOOPS void split_heads(const Dims& d, const float* in, float* out) {
  for (std::size_t b = 0; b < d.batch; ++b)
    for (std::size_t t = 0; t < d.tokens; ++t)
      for (std::size_t h = 0; h < d.heads; ++h)
        copy_row(in + (b * d.tokens + t) * d.concat + h * d.head_dim,
                 out + ((b * d.heads + h) * d.tokens + t) * d.head_dim, d.head_dim);
}

void attend(const Dims& d, const float* q_heads, const float* k_heads, const float* v_heads,
            HeadScratch scratch, float* context_heads, float* scores, float* attention) {
  const auto bias = d.position ? d.position->score_bias : nullptr;
  if (!scores && !attention && !bias && is_short_head(d.tokens, d.head_dim)) {
    attend_short_heads_f32(d.batch * d.heads, d.tokens, d.head_dim, d.causal, q_heads, k_heads,
                           v_heads, context_heads);
    return;
  }
  const std::size_t head_size = d.tokens * d.head_dim;
  const std::size_t score_size = d.tokens * d.tokens;
  for (std::size_t bh = 0; bh < d.batch * d.heads; ++bh) {
    HeadInputs in = split_head(d.tokens, d.head_dim, d.causal, q_heads + bh * head_size,
                               k_heads + bh * head_size, v_heads + bh * head_size);
    in.bias = {bias, d.head_offset + bh % d.heads, d.total_heads};
    HeadOutputs out{context_heads + bh * head_size, d.head_dim,
                    scores ? scores + bh * score_size : nullptr,
                    attention ? attention + bh * score_size : nullptr};
    attend_head_f32(in, scratch, out);
  }
}

HEADWISE_PLAIN_LOOPS void merge_heads(const Dims& d, const float* in, float* out) {
  for (std::size_t b = 0; b < d.batch; ++b)
    for (std::size_t t = 0; t < d.tokens; ++t)
      for (std::size_t h = 0; h < d.heads; ++h)
        copy_row(in + ((b * d.heads + h) * d.tokens + t) * d.head_dim,
                 out + (b * d.tokens + t) * d.concat + h * d.head_dim, d.head_dim);
}

void out_project(const Dims& d, const float* w_out, const float* b_out, const float* concat,
                 float* out) {
  gemm_f32(d.rows(), d.d_model, d.concat, {concat, d.concat}, {w_out, d.d_model}, b_out, out,
           d.d_model);
}

}  // namespace headwise
