#include "loop_attention.hpp"

#include "gemm_f32.hpp"
#include "linalg.hpp"

namespace headwise {

namespace {

// One head of one sequence: its own projections, then scaled dot-product attention.
void run_head(const layers::AttentionShape& s, const layers::AttentionParams& w, std::size_t h,
              const float* x, HeadScratch scratch, float* q, float* k, float* v, HeadOutputs out) {
  // The head's K/V head: its own (multi-head), or shared with its group (grouped-query).
  const std::size_t col = h * s.head_dim, C = s.concat();
  const std::size_t kv_col = s.kv_head_of(h) * s.head_dim, Ckv = s.kv_concat();
  const MatrixView input{x, s.d_model};
  const auto slice = [](const float* bias, std::size_t c) { return bias ? bias + c : nullptr; };
  gemm_f32(s.tokens, s.head_dim, s.d_model, input, {w.wq + col, C}, slice(w.bq, col), q,
           s.head_dim);
  gemm_f32(s.tokens, s.head_dim, s.d_model, input, {w.wk + kv_col, Ckv}, slice(w.bk, kv_col), k,
           s.head_dim);
  gemm_f32(s.tokens, s.head_dim, s.d_model, input, {w.wv + kv_col, Ckv}, slice(w.bv, kv_col), v,
           s.head_dim);
  attend_head_f32(split_head(s.tokens, s.head_dim, s.causal, q, k, v), scratch, out);
}

}  // namespace

void forward_loop(const layers::AttentionShape& s, const layers::AttentionParams& w, const float* x,
                  const layers::AttentionTensors& t, float* out) {
  const std::size_t T = s.tokens, C = s.concat(), head_size = T * s.head_dim;
  const auto weights = [&](float* all, std::size_t bh) { return all ? all + bh * T * T : nullptr; };
  for (std::size_t h = 0; h < s.heads; ++h) {
    for (std::size_t b = 0; b < s.batch; ++b) {
      const std::size_t bh = b * s.heads + h, bkv = b * s.kv() + s.kv_head_of(h);
      const HeadOutputs head_out{t.concat + b * T * C + h * s.head_dim, C, weights(t.scores, bh),
                                 weights(t.attention, bh)};
      // A shared K/V head is projected again by each head of its group (same values).
      run_head(s, w, h, x + b * T * s.d_model, t.scratch, t.q_heads + bh * head_size,
               t.k_heads + bkv * head_size, t.v_heads + bkv * head_size, head_out);
    }
  }
  matmul(s.batch * T, s.d_model, C, t.concat, w.wout, w.bout, out);
}

}  // namespace headwise
