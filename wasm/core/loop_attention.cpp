#include "loop_attention.hpp"

#include "gemm_f32.hpp"

namespace headwise {

namespace {

// One head of one sequence: its own projections, then scaled dot-product attention.
void run_head(const Dims& d, const ProjectionWeights& w, std::size_t h, const float* x,
              HeadScratch scratch, float* q, float* k, float* v, HeadOutputs out) {
  const std::size_t col = h * d.head_dim;
  const MatrixView input{x, d.d_model};
  const auto slice = [&](const float* bias) { return bias ? bias + col : nullptr; };
  gemm_f32(d.tokens, d.head_dim, d.d_model, input, {w.wq + col, d.concat}, slice(w.bq), q,
           d.head_dim);
  gemm_f32(d.tokens, d.head_dim, d.d_model, input, {w.wk + col, d.concat}, slice(w.bk), k,
           d.head_dim);
  gemm_f32(d.tokens, d.head_dim, d.d_model, input, {w.wv + col, d.concat}, slice(w.bv), v,
           d.head_dim);
  attend_head_f32(split_head(d.tokens, d.head_dim, d.causal, q, k, v), scratch, out);
}

}  // namespace

void forward_loop(const Dims& d, const ProjectionWeights& w, const float* w_out, const float* b_out,
                  const float* x, HeadScratch scratch, LoopBuffers buffers, float* out) {
  const std::size_t head_size = d.tokens * d.head_dim;
  const std::size_t score_size = d.tokens * d.tokens;
  for (std::size_t h = 0; h < d.heads; ++h) {
    for (std::size_t b = 0; b < d.batch; ++b) {
      const std::size_t bh = b * d.heads + h;
      HeadOutputs head_out{buffers.concat + b * d.tokens * d.concat + h * d.head_dim, d.concat,
                           buffers.scores ? buffers.scores + bh * score_size : nullptr,
                           buffers.attention ? buffers.attention + bh * score_size : nullptr};
      run_head(d, w, h, x + b * d.tokens * d.d_model, scratch, buffers.q_heads + bh * head_size,
               buffers.k_heads + bh * head_size, buffers.v_heads + bh * head_size, head_out);
    }
  }
  out_project(d, w_out, b_out, buffers.concat, out);
}

}  // namespace headwise
