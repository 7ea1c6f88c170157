// Grouped-query attention written out in plain double loops, independent of the core: the K/V
// heads repeated for their groups of query heads (query head h reads K/V head h / (H / Hkv)),
// the softmax Jacobian in full. Queries at positions qf..T-1; y is (B, T - qf, D). Used by the
// K/V tests (kv_*_test.cpp) as the reference for the operator's forward, backward and decoding.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace headwise::testing {

struct KvCase {
  std::size_t batch, tokens, d_model, heads, kv_heads, head_dim, query_from;
  bool causal, bias;
  std::size_t concat() const { return heads * head_dim; }
  std::size_t kv_concat() const { return kv_heads * head_dim; }
  std::size_t query_tokens() const { return tokens - query_from; }
};

struct KvParams {
  using Vec = std::vector<double>;
  Vec x, wq, wk, wv, wout, bq, bk, bv, bout;
  std::vector<Vec*> all() { return {&x, &wq, &wk, &wv, &wout, &bq, &bk, &bv, &bout}; }
};

// Forward (and, given g = dL/dy, the gradients of L = sum(y * g) into *grads, zeroed first).
inline std::vector<double> kv_reference(const KvCase& c, const KvParams& p,
                                        const std::vector<double>* g = nullptr,
                                        KvParams* grads = nullptr) {
  using Vec = std::vector<double>;
  const std::size_t B = c.batch, T = c.tokens, D = c.d_model, H = c.heads, hd = c.head_dim;
  const std::size_t C = c.concat(), Ck = c.kv_concat(), Tq = c.query_tokens(), qf = c.query_from;
  const std::size_t group = H / c.kv_heads;
  const double scale = 1 / std::sqrt(double(hd));
  auto project = [&](const Vec& w, const Vec& bias, std::size_t width, std::size_t row) {
    Vec out(width);
    for (std::size_t j = 0; j < width; ++j) {
      double sum = c.bias ? bias[j] : 0;
      for (std::size_t i = 0; i < D; ++i) sum += p.x[row * D + i] * w[i * width + j];
      out[j] = sum;
    }
    return out;
  };
  Vec q(B * Tq * C), k(B * T * Ck), v(B * T * Ck), P(B * H * Tq * T, 0.0), cat(B * Tq * C, 0.0);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t t = 0; t < T; ++t) {
      const Vec kr = project(p.wk, p.bk, Ck, b * T + t), vr = project(p.wv, p.bv, Ck, b * T + t);
      std::copy(kr.begin(), kr.end(), k.begin() + (b * T + t) * Ck);
      std::copy(vr.begin(), vr.end(), v.begin() + (b * T + t) * Ck);
      if (t >= qf) {
        const Vec qr = project(p.wq, p.bq, C, b * T + t);
        std::copy(qr.begin(), qr.end(), q.begin() + (b * Tq + t - qf) * C);
      }
    }
  const auto qat = [&](std::size_t b, std::size_t i, std::size_t h, std::size_t d) {
    return (b * Tq + i) * C + h * hd + d;
  };
  const auto kat = [&](std::size_t b, std::size_t j, std::size_t h, std::size_t d) {
    return (b * T + j) * Ck + (h / group) * hd + d;  // the K/V head repeated for its group
  };
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < Tq; ++i) {
        const std::size_t n = c.causal ? qf + i + 1 : T;
        double* row = &P[((b * H + h) * Tq + i) * T];
        double mx = -1e300, sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
          double dot = 0;
          for (std::size_t d = 0; d < hd; ++d) dot += q[qat(b, i, h, d)] * k[kat(b, j, h, d)];
          row[j] = dot * scale;
          mx = std::max(mx, row[j]);
        }
        for (std::size_t j = 0; j < n; ++j) sum += (row[j] = std::exp(row[j] - mx));
        for (std::size_t j = 0; j < n; ++j) row[j] /= sum;
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t d = 0; d < hd; ++d) cat[qat(b, i, h, d)] += row[j] * v[kat(b, j, h, d)];
      }
  Vec y(B * Tq * D);
  for (std::size_t r = 0; r < B * Tq; ++r)
    for (std::size_t j = 0; j < D; ++j) {
      double sum = c.bias ? p.bout[j] : 0;
      for (std::size_t i = 0; i < C; ++i) sum += cat[r * C + i] * p.wout[i * D + j];
      y[r * D + j] = sum;
    }
  if (!g) return y;

  KvParams& gr = *grads;
  gr = KvParams{Vec(p.x.size(), 0.0),
                Vec(p.wq.size(), 0.0),
                Vec(p.wk.size(), 0.0),
                Vec(p.wv.size(), 0.0),
                Vec(p.wout.size(), 0.0),
                Vec(C, 0.0),
                Vec(Ck, 0.0),
                Vec(Ck, 0.0),
                Vec(D, 0.0)};
  Vec dcat(B * Tq * C, 0.0), dq(B * Tq * C, 0.0), dk(B * T * Ck, 0.0), dv(B * T * Ck, 0.0);
  for (std::size_t r = 0; r < B * Tq; ++r)
    for (std::size_t j = 0; j < D; ++j) {
      gr.bout[j] += (*g)[r * D + j];
      for (std::size_t i = 0; i < C; ++i) {
        gr.wout[i * D + j] += cat[r * C + i] * (*g)[r * D + j];
        dcat[r * C + i] += (*g)[r * D + j] * p.wout[i * D + j];
      }
    }
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < Tq; ++i) {
        const std::size_t n = c.causal ? qf + i + 1 : T;
        const double* row = &P[((b * H + h) * Tq + i) * T];
        Vec dP(n, 0.0), dS(n, 0.0);
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t d = 0; d < hd; ++d) {
            dP[j] += dcat[qat(b, i, h, d)] * v[kat(b, j, h, d)];
            dv[kat(b, j, h, d)] += row[j] * dcat[qat(b, i, h, d)];
          }
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t l = 0; l < n; ++l) dS[j] += dP[l] * row[l] * ((l == j) - row[j]);
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t d = 0; d < hd; ++d) {
            dq[qat(b, i, h, d)] += dS[j] * scale * k[kat(b, j, h, d)];
            dk[kat(b, j, h, d)] += dS[j] * scale * q[qat(b, i, h, d)];
          }
      }
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t t = 0; t < T; ++t) {
      const std::size_t r = b * T + t;
      for (std::size_t j = 0; j < Ck; ++j) {
        gr.bk[j] += dk[r * Ck + j], gr.bv[j] += dv[r * Ck + j];
        for (std::size_t i = 0; i < D; ++i) {
          gr.wk[i * Ck + j] += p.x[r * D + i] * dk[r * Ck + j];
          gr.wv[i * Ck + j] += p.x[r * D + i] * dv[r * Ck + j];
          gr.x[r * D + i] += dk[r * Ck + j] * p.wk[i * Ck + j] + dv[r * Ck + j] * p.wv[i * Ck + j];
        }
      }
      if (t < qf) continue;
      const std::size_t rq = b * Tq + t - qf;
      for (std::size_t j = 0; j < C; ++j) {
        gr.bq[j] += dq[rq * C + j];
        for (std::size_t i = 0; i < D; ++i) {
          gr.wq[i * C + j] += p.x[r * D + i] * dq[rq * C + j];
          gr.x[r * D + i] += dq[rq * C + j] * p.wq[i * C + j];
        }
      }
    }
  return y;
}

}  // namespace headwise::testing
