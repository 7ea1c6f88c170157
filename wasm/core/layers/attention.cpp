#include "attention.hpp"

#include <algorithm>
#include <cmath>

#include "linalg.hpp"

namespace headwise::layers {

void attention_row_softmax(const float* q, const float* k, std::size_t key_stride,
                           std::size_t head_dim, std::size_t last, float scale, const float* bias,
                           float* p) {
  float max = -INFINITY;
  for (std::size_t j = 0; j <= last; ++j) {
    const float* kj = k + j * key_stride;
    float dot = 0.0f;
    for (std::size_t d = 0; d < head_dim; ++d) dot += q[d] * kj[d];
    p[j] = bias ? dot * scale + bias[j] : dot * scale;
    max = std::max(max, p[j]);
  }
  float sum = 0.0f;
  for (std::size_t j = 0; j <= last; ++j) {
    p[j] = std::exp(p[j] - max);
    sum += p[j];
  }
  const float inv = 1.0f / sum;
  for (std::size_t j = 0; j <= last; ++j) p[j] *= inv;
}

// With ctx = sum_j P_j v_j and P = softmax(s), s_j = scale q.k_j (+ a constant bias):
//   dP_j = dctx.v_j, dv_j += P_j dctx, ds_j = P_j (dP_j - sum_i P_i dP_i),
//   dq += scale sum_j ds_j k_j, dk_j += scale ds_j q.
void attention_row_backward(const float* q, const float* k, const float* v, std::size_t key_stride,
                            std::size_t head_dim, std::size_t last, float scale, const float* p,
                            const float* dctx, float* dq, float* dk, float* dv, float* scratch) {
  float weighted = 0.0f;
  for (std::size_t j = 0; j <= last; ++j) {
    const float* vj = v + j * key_stride;
    float* dvj = dv + j * key_stride;
    float dp = 0.0f;
    for (std::size_t d = 0; d < head_dim; ++d) {
      dp += dctx[d] * vj[d];
      dvj[d] += p[j] * dctx[d];
    }
    scratch[j] = dp;
    weighted += p[j] * dp;
  }
  for (std::size_t j = 0; j <= last; ++j) {
    const float ds = p[j] * (scratch[j] - weighted) * scale;
    const float* kj = k + j * key_stride;
    float* dkj = dk + j * key_stride;
    for (std::size_t d = 0; d < head_dim; ++d) {
      dq[d] += ds * kj[d];
      dkj[d] += ds * q[d];
    }
  }
}

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

// The bias of head h's query at position i over keys 0..last, or null without one.
const float* score_bias(const AttentionShape& s, std::size_t h, std::size_t i, std::size_t last,
                        float* bias) {
  if (!s.position || !s.position->score_bias) return nullptr;
  for (std::size_t j = 0; j <= last; ++j) bias[j] = s.position->score_bias(h, s.heads, i, j);
  return bias;
}

}  // namespace

const float* query_rows(const AttentionShape& s, const float* x, const AttentionTape& tape) {
  return s.query_from == 0 ? x : tape.xq;
}

void attention_forward(const AttentionShape& s, const AttentionParams& w, const float* x,
                       const AttentionTape& tape, float* y, float* bias_scratch) {
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
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  std::fill_n(tape.concat, B * Tq * C, 0.0f);
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t keys = b * T * C + h * hd;
      for (std::size_t i = 0; i < Tq; ++i) {
        const std::size_t pos = qf + i, last = s.causal ? pos : T - 1;
        const std::size_t row = (b * Tq + i) * C + h * hd;
        float* p = tape.p + ((b * H + h) * Tq + i) * T;
        std::fill(p + last + 1, p + T, 0.0f);
        attention_row_softmax(tape.q + row, tape.k + keys, C, hd, last, scale,
                              score_bias(s, h, pos, last, bias_scratch), p);
        float* ctx = tape.concat + row;
        for (std::size_t j = 0; j <= last; ++j) {
          const float* vj = tape.v + keys + j * C;
          for (std::size_t d = 0; d < hd; ++d) ctx[d] += p[j] * vj[d];
        }
      }
    }
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
  std::fill_n(scratch.dq, qrows * C, 0.0f);
  std::fill_n(scratch.dk, rows * C, 0.0f);
  std::fill_n(scratch.dv, rows * C, 0.0f);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t keys = b * T * C + h * hd;
      for (std::size_t i = 0; i < Tq; ++i) {
        const std::size_t pos = qf + i, last = s.causal ? pos : T - 1;
        const std::size_t row = (b * Tq + i) * C + h * hd;
        attention_row_backward(tape.q + row, tape.k + keys, tape.v + keys, C, hd, last, scale,
                               tape.p + ((b * H + h) * Tq + i) * T, scratch.dconcat + row,
                               scratch.dq + row, scratch.dk + keys, scratch.dv + keys, scratch.row);
      }
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
