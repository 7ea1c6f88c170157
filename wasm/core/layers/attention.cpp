#include "attention.hpp"

#include <algorithm>
#include <cmath>

#include "attention_head.hpp"
#include "gemm_f32.hpp"
#include "linalg.hpp"

namespace headwise::layers {

namespace {

// Rotates (or, inverse, rotates back) every head of rows whose position is first + r % per_seq.
void rotate_rows(const AttentionShape& s, float* rows, std::size_t count, std::size_t per_seq,
                 std::size_t first, bool inverse) {
  const std::size_t C = s.concat();
  for (std::size_t r = 0; r < count; ++r) {
    const std::size_t t = first + r % per_seq;
    for (std::size_t h = 0; h < s.heads; ++h)
      s.position->rotate(t, s.head_dim, rows + r * C + h * s.head_dim, inverse);
  }
}

bool rotates(const AttentionShape& s) { return s.position && s.position->rotate; }

}  // namespace

const float* query_rows(const AttentionShape& s, const float* x, const AttentionTape& tape) {
  return s.query_from == 0 ? x : tape.xq;
}

void attention_forward(const AttentionShape& s, const AttentionParams& w, const float* x,
                       const AttentionTape& tape, float* y) {
  const std::size_t B = s.batch, T = s.tokens, D = s.d_model, H = s.heads, hd = s.head_dim;
  const std::size_t C = s.concat(), Tq = s.query_tokens(), qf = s.query_from;
  matmul(B * T, C, D, x, w.wk, w.bk, tape.k);
  matmul(B * T, C, D, x, w.wv, w.bv, tape.v);
  if (qf > 0) {
    for (std::size_t b = 0; b < B; ++b)
      std::copy_n(x + (b * T + qf) * D, Tq * D, tape.xq + b * Tq * D);
  }
  matmul(B * Tq, C, D, query_rows(s, x, tape), w.wq, w.bq, tape.q);
  if (rotates(s)) {
    rotate_rows(s, tape.q, B * Tq, Tq, qf, false);
    rotate_rows(s, tape.k, B * T, T, 0, false);
  }
  // Per (sequence, head), the inference layer's attention kernel, reading each head's columns of
  // q, k, v in place and writing P to the tape and the context into the head's columns of concat.
  const auto bias = s.position ? s.position->score_bias : nullptr;
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t keys = b * T * C + h * hd, queries = b * Tq * C + h * hd;
      const HeadInputs in{
          T, qf, hd, s.causal, tape.q + queries, tape.k + keys, tape.v + keys, C, {bias, h, H}};
      attend_head_f32(in, HeadScratch{nullptr},
                      {tape.concat + queries, C, nullptr, tape.p + (b * H + h) * Tq * T});
    }
  }
  if (s.zero_heads) {
    for (std::size_t h = 0; h < H; ++h)
      if (s.zero_heads[h])
        for (std::size_t r = 0; r < B * Tq; ++r)
          std::fill_n(tape.concat + r * C + h * hd, hd, 0.0f);
  }
  matmul(B * Tq, D, C, tape.concat, w.wout, w.bout, y);
}

void attention_backward(const AttentionShape& s, const AttentionParams& w, const float* x,
                        const AttentionTape& tape, const float* dy, const AttentionGrads& g,
                        const AttentionScratch& scratch, float* dx, float* dx_query) {
  const std::size_t B = s.batch, T = s.tokens, D = s.d_model, H = s.heads, hd = s.head_dim;
  const std::size_t C = s.concat(), Tq = s.query_tokens(), qf = s.query_from;
  const std::size_t rows = B * T, qrows = B * Tq;
  matmul_at_b(C, D, qrows, tape.concat, dy, g.wout);
  if (g.bout) column_sums(qrows, D, dy, g.bout);
  matmul_a_bt(qrows, C, D, dy, w.wout, scratch.dconcat);
  // Per (sequence, head), with dS in scratch.scores (Tq x T): dP = dctx_h v_h^T,
  // dv_h = P^T dctx_h, dS = P (dP - rowsum(P dP)) scale (zero past each row's last key),
  // dq_h = dS k_h, dk_h = dS^T q_h. Every (b, h) block of dq, dk, dv is written once.
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  float* ds = scratch.scores;
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t keys = b * T * C + h * hd, queries = b * Tq * C + h * hd;
      const float* p = tape.p + (b * H + h) * Tq * T;
      gemm_f32(Trans::kNo, Trans::kYes, Tq, T, hd, 1.0f, scratch.dconcat + queries, C,
               tape.v + keys, C, 0.0f, ds, T);
      gemm_f32(Trans::kYes, Trans::kNo, T, hd, Tq, 1.0f, p, T, scratch.dconcat + queries, C, 0.0f,
               scratch.dv + keys, C);
      for (std::size_t i = 0; i < Tq; ++i) {
        const std::size_t last = s.causal ? qf + i : T - 1;
        const float* pi = p + i * T;
        float* di = ds + i * T;
        float weighted = 0.0f;
        for (std::size_t j = 0; j <= last; ++j) weighted += pi[j] * di[j];
        for (std::size_t j = 0; j <= last; ++j) di[j] = pi[j] * (di[j] - weighted) * scale;
        std::fill(di + last + 1, di + T, 0.0f);
      }
      gemm_f32(Trans::kNo, Trans::kNo, Tq, hd, T, 1.0f, ds, T, tape.k + keys, C, 0.0f,
               scratch.dq + queries, C);
      gemm_f32(Trans::kYes, Trans::kNo, T, hd, Tq, 1.0f, ds, T, tape.q + queries, C, 0.0f,
               scratch.dk + keys, C);
    }
  }
  if (rotates(s)) {  // back from the rotated q and k to the projections' outputs
    rotate_rows(s, scratch.dq, qrows, Tq, qf, true);
    rotate_rows(s, scratch.dk, rows, T, 0, true);
  }
  const float* xq = query_rows(s, x, tape);
  matmul_at_b(D, C, qrows, xq, scratch.dq, g.wq);
  if (g.bq) column_sums(qrows, C, scratch.dq, g.bq);
  matmul_at_b(D, C, rows, x, scratch.dk, g.wk);
  if (g.bk) column_sums(rows, C, scratch.dk, g.bk);
  matmul_at_b(D, C, rows, x, scratch.dv, g.wv);
  if (g.bv) column_sums(rows, C, scratch.dv, g.bv);
  matmul_a_bt(rows, D, C, scratch.dk, w.wk, dx);
  matmul_a_bt(rows, D, C, scratch.dv, w.wv, dx, true);
  matmul_a_bt(qrows, D, C, scratch.dq, w.wq, dx_query, true);
}

}  // namespace headwise::layers
