// An independent double-precision multi-head attention, written as plainly as the math.
// Tests and the fuzz target compare the core's float kernels against it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace headwise::testing {

struct RefSizes {
  std::size_t batch, tokens, d_model, heads, head_dim;
  bool causal;
  std::size_t concat() const { return heads * head_dim; }
};

struct RefWeights {
  const float *wq, *wk, *wv, *wout;  // (d, H*hd) x3, (H*hd, d)
  const float *bq, *bk, *bv, *bout;  // may be null
};

struct RefResult {
  std::vector<double> q_heads, k_heads, v_heads;  // (B, H, T, hd)
  std::vector<double> scores, attention;          // (B, H, T, T); masked scores -inf
  std::vector<double> context_heads;              // (B, H, T, hd)
  std::vector<double> concat;                     // (B, T, H*hd)
  std::vector<double> output;                     // (B, T, d)
};

// Position hooks, in double (optional): rotate(t, vector, hd) turns a head's q or k to position t
// in place (RoPE); bias(h, i, j) is added to head h's scaled score of query i on key j (ALiBi).
struct RefPositions {
  void (*rotate)(std::size_t t, double* v, std::size_t hd) = nullptr;
  double (*bias)(std::size_t h, std::size_t heads, std::size_t i, std::size_t j) = nullptr;
};

inline RefResult reference_mha(const RefSizes& s, const RefWeights& w, const float* x,
                               const RefPositions& positions = {}) {
  const std::size_t B = s.batch, T = s.tokens, D = s.d_model, H = s.heads, hd = s.head_dim;
  const std::size_t C = s.concat();
  RefResult r;
  r.q_heads.assign(B * H * T * hd, 0);
  r.k_heads.assign(B * H * T * hd, 0);
  r.v_heads.assign(B * H * T * hd, 0);
  r.scores.assign(B * H * T * T, 0);
  r.attention.assign(B * H * T * T, 0);
  r.context_heads.assign(B * H * T * hd, 0);
  r.concat.assign(B * T * C, 0);
  r.output.assign(B * T * D, 0);
  auto head_index = [&](std::size_t b, std::size_t h, std::size_t t, std::size_t e) {
    return ((b * H + h) * T + t) * hd + e;
  };
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      for (std::size_t t = 0; t < T; ++t)
        for (std::size_t e = 0; e < hd; ++e) {
          const std::size_t col = h * hd + e;
          double q = w.bq ? w.bq[col] : 0.0, k = w.bk ? w.bk[col] : 0.0, v = w.bv ? w.bv[col] : 0.0;
          for (std::size_t i = 0; i < D; ++i) {
            const double xi = x[(b * T + t) * D + i];
            q += xi * w.wq[i * C + col];
            k += xi * w.wk[i * C + col];
            v += xi * w.wv[i * C + col];
          }
          r.q_heads[head_index(b, h, t, e)] = q;
          r.k_heads[head_index(b, h, t, e)] = k;
          r.v_heads[head_index(b, h, t, e)] = v;
        }
      if (positions.rotate) {
        for (std::size_t t = 0; t < T; ++t) {
          positions.rotate(t, &r.q_heads[head_index(b, h, t, 0)], hd);
          positions.rotate(t, &r.k_heads[head_index(b, h, t, 0)], hd);
        }
      }
      for (std::size_t i = 0; i < T; ++i) {
        double* srow = &r.scores[((b * H + h) * T + i) * T];
        double* prow = &r.attention[((b * H + h) * T + i) * T];
        double max = -std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < T; ++j) {
          if (s.causal && j > i) {
            srow[j] = -std::numeric_limits<double>::infinity();
            continue;
          }
          double dot = 0;
          for (std::size_t e = 0; e < hd; ++e)
            dot += r.q_heads[head_index(b, h, i, e)] * r.k_heads[head_index(b, h, j, e)];
          srow[j] =
              dot / std::sqrt(double(hd)) + (positions.bias ? positions.bias(h, H, i, j) : 0.0);
          max = std::max(max, srow[j]);
        }
        double sum = 0;
        for (std::size_t j = 0; j < T; ++j) {
          prow[j] = std::isinf(srow[j]) ? 0.0 : std::exp(srow[j] - max);
          sum += prow[j];
        }
        for (std::size_t j = 0; j < T; ++j) prow[j] /= sum;
        for (std::size_t e = 0; e < hd; ++e) {
          double c = 0;
          for (std::size_t j = 0; j < T; ++j) c += prow[j] * r.v_heads[head_index(b, h, j, e)];
          r.context_heads[head_index(b, h, i, e)] = c;
          r.concat[(b * T + i) * C + h * hd + e] = c;
        }
      }
    }
  for (std::size_t row = 0; row < B * T; ++row)
    for (std::size_t o = 0; o < D; ++o) {
      double y = w.bout ? w.bout[o] : 0.0;
      for (std::size_t c = 0; c < C; ++c) y += r.concat[row * C + c] * w.wout[c * D + o];
      r.output[row * D + o] = y;
    }
  return r;
}

// softmax of one row in double, max subtracted first (so logits of 1e4 are fine).
inline std::vector<double> reference_softmax(const std::vector<float>& row) {
  double max = -std::numeric_limits<double>::infinity(), sum = 0;
  for (float x : row) max = std::max(max, double(x));
  std::vector<double> out(row.size());
  for (std::size_t i = 0; i < row.size(); ++i) sum += out[i] = std::exp(double(row[i]) - max);
  for (auto& p : out) p /= sum;
  return out;
}

}  // namespace headwise::testing
