#include "loop_attention.hpp"

#include "gemm_f32.hpp"
#include "linalg.hpp"

namespace headwise {

namespace {

// One head of one sequence: its own projections, then scaled dot-product attention.
void run_head(const layers::AttentionShape& s, const layers::AttentionParams& w, std::size_t h,
              const float* x, HeadScratch scratch, float* q, float* k, float* v, HeadOutputs out) {
  const std::size_t col = h * s.head_dim, C = s.concat();
  const MatrixView input{x, s.d_model};
  const auto slice = [&](const float* bias) { return bias ? bias + col : nullptr; };
  gemm_f32(s.tokens, s.head_dim, s.d_model, input, {w.wq + col, C}, slice(w.bq), q, s.head_dim);
  gemm_f32(s.tokens, s.head_dim, s.d_model, input, {w.wk + col, C}, slice(w.bk), k, s.head_dim);
  gemm_f32(s.tokens, s.head_dim, s.d_model, input, {w.wv + col, C}, slice(w.bv), v, s.head_dim);
  attend_head_f32(split_head(s.tokens, s.head_dim, s.causal, q, k, v), scratch, out);
}

}  // namespace

void forward_loop(const layers::AttentionShape& s, const layers::AttentionParams& w, const float* x,
                  const layers::AttentionTensors& t, float* out) {
  const std::size_t T = s.tokens, C = s.concat(), head_size = T * s.head_dim;
  const auto weights = [&](float* all, std::size_t bh) { return all ? all + bh * T * T : nullptr; };
  for (std::size_t h = 0; h < s.heads; ++h) {
    for (std::size_t b = 0; b < s.batch; ++b) {
      const std::size_t bh = b * s.heads + h;
      const HeadOutputs head_out{t.concat + b * T * C + h * s.head_dim, C, weights(t.scores, bh),
                                 weights(t.attention, bh)};
      run_head(s, w, h, x + b * T * s.d_model, t.scratch, t.q_heads + bh * head_size,
               t.k_heads + bh * head_size, t.v_heads + bh * head_size, head_out);
    }
  }
  matmul(s.batch * T, s.d_model, C, t.concat, w.wout, w.bout, out);
}

}  // namespace headwise
