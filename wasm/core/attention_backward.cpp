#include "attention_backward.hpp"

#include <algorithm>
#include <cmath>

#include "train/linalg.hpp"

namespace headwise {

using train::column_sums;
using train::matmul;
using train::matmul_a_bt;
using train::matmul_at_b;

void attention_row_softmax(const float* q, const float* k, std::size_t key_stride,
                           std::size_t head_dim, std::size_t last, float scale, float* p) {
  float max = -INFINITY;
  for (std::size_t j = 0; j <= last; ++j) {
    const float* kj = k + j * key_stride;
    float dot = 0.0f;
    for (std::size_t d = 0; d < head_dim; ++d) dot += q[d] * kj[d];
    p[j] = dot * scale;
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

// With ctx = sum_j P_j v_j and P = softmax(s), s_j = scale q.k_j:
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

void attention_forward_train(const AttentionShape& s, const AttentionParams& w, const float* x,
                             float* y, AttentionSaved* saved) {
  const std::size_t B = s.batch, T = s.tokens, D = s.d_model, H = s.heads, hd = s.head_dim;
  const std::size_t C = s.concat(), rows = B * T;
  saved->q.resize(rows * C);
  saved->k.resize(rows * C);
  saved->v.resize(rows * C);
  saved->p.assign(B * H * T * T, 0.0f);
  saved->concat.assign(rows * C, 0.0f);
  matmul(rows, C, D, x, w.wq, w.bq, saved->q.data());
  matmul(rows, C, D, x, w.wk, w.bk, saved->k.data());
  matmul(rows, C, D, x, w.wv, w.bv, saved->v.data());
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t base = b * T * C + h * hd;
      for (std::size_t i = 0; i < T; ++i) {
        const std::size_t last = s.causal ? i : T - 1;
        float* p = saved->p.data() + ((b * H + h) * T + i) * T;
        attention_row_softmax(saved->q.data() + base + i * C, saved->k.data() + base, C, hd, last,
                              scale, p);
        float* ctx = saved->concat.data() + base + i * C;
        for (std::size_t j = 0; j <= last; ++j) {
          const float* vj = saved->v.data() + base + j * C;
          for (std::size_t d = 0; d < hd; ++d) ctx[d] += p[j] * vj[d];
        }
      }
    }
  }
  matmul(rows, D, C, saved->concat.data(), w.wout, w.bout, y);
}

void attention_backward(const AttentionShape& s, const AttentionParams& w, const float* x,
                        const AttentionSaved& saved, const float* dy, const AttentionGrads& g,
                        float* dx) {
  const std::size_t B = s.batch, T = s.tokens, D = s.d_model, H = s.heads, hd = s.head_dim;
  const std::size_t C = s.concat(), rows = B * T;
  std::vector<float> dconcat(rows * C), dq(rows * C, 0.0f), dk(rows * C, 0.0f), dv(rows * C, 0.0f),
      scratch(T);
  matmul_at_b(C, D, rows, saved.concat.data(), dy, g.wout);
  if (g.bout) column_sums(rows, D, dy, g.bout);
  matmul_a_bt(rows, C, D, dy, w.wout, dconcat.data());
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t base = b * T * C + h * hd;
      for (std::size_t i = 0; i < T; ++i) {
        const std::size_t last = s.causal ? i : T - 1;
        const float* p = saved.p.data() + ((b * H + h) * T + i) * T;
        attention_row_backward(saved.q.data() + base + i * C, saved.k.data() + base,
                               saved.v.data() + base, C, hd, last, scale, p,
                               dconcat.data() + base + i * C, dq.data() + base + i * C,
                               dk.data() + base, dv.data() + base, scratch.data());
      }
    }
  }
  matmul_at_b(D, C, rows, x, dq.data(), g.wq);
  matmul_at_b(D, C, rows, x, dk.data(), g.wk);
  matmul_at_b(D, C, rows, x, dv.data(), g.wv);
  if (g.bq) column_sums(rows, C, dq.data(), g.bq);
  if (g.bk) column_sums(rows, C, dk.data(), g.bk);
  if (g.bv) column_sums(rows, C, dv.data(), g.bv);
  matmul_a_bt(rows, D, C, dq.data(), w.wq, dx);
  matmul_a_bt(rows, D, C, dk.data(), w.wk, dx, true);
  matmul_a_bt(rows, D, C, dv.data(), w.wv, dx, true);
}

}  // namespace headwise
