// Backward of the multi-head attention layer: every gradient against an independent double
// reference (plain loops, the softmax Jacobian written out in full) and against central finite
// differences of a double forward, at tail sizes. The loss is L = sum(y * G) for a fixed random G.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "layers/attention.hpp"
#include "test_helpers.hpp"

namespace headwise::layers {
namespace {

using testing::all_close;
using Vec = std::vector<double>;

struct Case {
  std::size_t batch, tokens, d_model, heads, head_dim;
  bool causal, bias;
};

// The parameters and x as doubles, in one list so finite differences can walk any of them.
struct Params {
  Vec x, wq, wk, wv, wout, bq, bk, bv, bout;
  std::vector<Vec*> all() { return {&x, &wq, &wk, &wv, &wout, &bq, &bk, &bv, &bout}; }
};
const char* const kNames[] = {"dx", "dWq", "dWk", "dWv", "dWout", "dbq", "dbk", "dbv", "dbout"};

// Plain double forward: y (B, T, D).
Vec forward(const Case& c, const Params& p) {
  const std::size_t B = c.batch, T = c.tokens, D = c.d_model, H = c.heads, hd = c.head_dim;
  const std::size_t C = H * hd;
  Vec q(B * T * C), k(B * T * C), v(B * T * C), cat(B * T * C, 0.0), y(B * T * D);
  for (std::size_t r = 0; r < B * T; ++r) {
    for (std::size_t j = 0; j < C; ++j) {
      double sq = c.bias ? p.bq[j] : 0, sk = c.bias ? p.bk[j] : 0, sv = c.bias ? p.bv[j] : 0;
      for (std::size_t i = 0; i < D; ++i) {
        sq += p.x[r * D + i] * p.wq[i * C + j];
        sk += p.x[r * D + i] * p.wk[i * C + j];
        sv += p.x[r * D + i] * p.wv[i * C + j];
      }
      q[r * C + j] = sq, k[r * C + j] = sk, v[r * C + j] = sv;
    }
  }
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < T; ++i) {
        const std::size_t n = c.causal ? i + 1 : T;
        Vec s(n);
        double mx = -1e300, sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
          double dot = 0;
          for (std::size_t d = 0; d < hd; ++d)
            dot += q[(b * T + i) * C + h * hd + d] * k[(b * T + j) * C + h * hd + d];
          s[j] = dot / std::sqrt(double(hd));
          mx = std::max(mx, s[j]);
        }
        for (double& e : s) sum += (e = std::exp(e - mx));
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t d = 0; d < hd; ++d)
            cat[(b * T + i) * C + h * hd + d] += s[j] / sum * v[(b * T + j) * C + h * hd + d];
      }
  for (std::size_t r = 0; r < B * T; ++r)
    for (std::size_t j = 0; j < D; ++j) {
      double acc = c.bias ? p.bout[j] : 0;
      for (std::size_t i = 0; i < C; ++i) acc += cat[r * C + i] * p.wout[i * D + j];
      y[r * D + j] = acc;
    }
  return y;
}

double loss(const Case& c, const Params& p, const Vec& g) {
  const Vec y = forward(c, p);
  double l = 0;
  for (std::size_t i = 0; i < y.size(); ++i) l += y[i] * g[i];
  return l;
}

// Double backward by another route: the full softmax Jacobian dP/ds = diag(P) - P P^T per row.
Params reference_backward(const Case& c, const Params& p, const Vec& g) {
  const std::size_t B = c.batch, T = c.tokens, D = c.d_model, H = c.heads, hd = c.head_dim;
  const std::size_t C = H * hd;
  Params gr;
  gr.x.assign(B * T * D, 0);
  gr.wq.assign(D * C, 0);
  gr.wk.assign(D * C, 0);
  gr.wv.assign(D * C, 0);
  gr.wout.assign(C * D, 0);
  gr.bq.assign(C, 0);
  gr.bk.assign(C, 0);
  gr.bv.assign(C, 0);
  gr.bout.assign(D, 0);
  Vec q(B * T * C), k(B * T * C), v(B * T * C), cat(B * T * C, 0.0);
  for (std::size_t r = 0; r < B * T; ++r)
    for (std::size_t j = 0; j < C; ++j) {
      double sq = c.bias ? p.bq[j] : 0, sk = c.bias ? p.bk[j] : 0, sv = c.bias ? p.bv[j] : 0;
      for (std::size_t i = 0; i < D; ++i) {
        sq += p.x[r * D + i] * p.wq[i * C + j];
        sk += p.x[r * D + i] * p.wk[i * C + j];
        sv += p.x[r * D + i] * p.wv[i * C + j];
      }
      q[r * C + j] = sq, k[r * C + j] = sk, v[r * C + j] = sv;
    }
  Vec dq(B * T * C, 0), dk(B * T * C, 0), dv(B * T * C, 0), P(T);
  Vec dcat(B * T * C, 0);
  // concat is needed for dWout, so the forward runs first, then dcat = G W_out^T.
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < T; ++i) {
        const std::size_t n = c.causal ? i + 1 : T;
        double mx = -1e300, sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
          double dot = 0;
          for (std::size_t d = 0; d < hd; ++d)
            dot += q[(b * T + i) * C + h * hd + d] * k[(b * T + j) * C + h * hd + d];
          P[j] = dot / std::sqrt(double(hd));
          mx = std::max(mx, P[j]);
        }
        for (std::size_t j = 0; j < n; ++j) sum += (P[j] = std::exp(P[j] - mx));
        for (std::size_t j = 0; j < n; ++j) P[j] /= sum;
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t d = 0; d < hd; ++d)
            cat[(b * T + i) * C + h * hd + d] += P[j] * v[(b * T + j) * C + h * hd + d];
      }
  for (std::size_t r = 0; r < B * T; ++r)
    for (std::size_t j = 0; j < D; ++j) {
      gr.bout[j] += g[r * D + j];
      for (std::size_t i = 0; i < C; ++i) {
        gr.wout[i * D + j] += cat[r * C + i] * g[r * D + j];
        dcat[r * C + i] += g[r * D + j] * p.wout[i * D + j];
      }
    }
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < T; ++i) {
        const std::size_t n = c.causal ? i + 1 : T;
        const double sc = 1 / std::sqrt(double(hd));
        Vec s(n), dP(n, 0), ds(n, 0);
        double mx = -1e300, sum = 0;
        auto at = [&](const Vec& m, std::size_t t, std::size_t d) {
          return m[(b * T + t) * C + h * hd + d];
        };
        for (std::size_t j = 0; j < n; ++j) {
          double dot = 0;
          for (std::size_t d = 0; d < hd; ++d) dot += at(q, i, d) * at(k, j, d);
          s[j] = dot * sc;
          mx = std::max(mx, s[j]);
        }
        for (std::size_t j = 0; j < n; ++j) sum += (s[j] = std::exp(s[j] - mx));
        for (std::size_t j = 0; j < n; ++j) s[j] /= sum;
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t d = 0; d < hd; ++d) {
            dP[j] += at(dcat, i, d) * at(v, j, d);
            dv[(b * T + j) * C + h * hd + d] += s[j] * at(dcat, i, d);
          }
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t l = 0; l < n; ++l) ds[j] += dP[l] * s[l] * ((l == j) - s[j]);
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t d = 0; d < hd; ++d) {
            dq[(b * T + i) * C + h * hd + d] += ds[j] * sc * at(k, j, d);
            dk[(b * T + j) * C + h * hd + d] += ds[j] * sc * at(q, i, d);
          }
      }
  for (std::size_t r = 0; r < B * T; ++r)
    for (std::size_t j = 0; j < C; ++j) {
      gr.bq[j] += dq[r * C + j], gr.bk[j] += dk[r * C + j], gr.bv[j] += dv[r * C + j];
      for (std::size_t i = 0; i < D; ++i) {
        gr.wq[i * C + j] += p.x[r * D + i] * dq[r * C + j];
        gr.wk[i * C + j] += p.x[r * D + i] * dk[r * C + j];
        gr.wv[i * C + j] += p.x[r * D + i] * dv[r * C + j];
        gr.x[r * D + i] += dq[r * C + j] * p.wq[i * C + j] + dk[r * C + j] * p.wk[i * C + j] +
                           dv[r * C + j] * p.wv[i * C + j];
      }
    }
  return gr;
}

std::vector<float> to_float(const Vec& v) { return std::vector<float>(v.begin(), v.end()); }

void check_case(const Case& c, std::uint32_t seed) {
  const std::size_t B = c.batch, T = c.tokens, D = c.d_model, C = c.heads * c.head_dim;
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  auto fill = [&](std::size_t n, double scale) {
    Vec v(n);
    for (double& e : v) e = double(float(u(gen) * scale));  // exactly representable in float
    return v;
  };
  Params p;
  p.x = fill(B * T * D, 1.0);
  p.wq = fill(D * C, 1.5 / std::sqrt(double(D)));  // large enough that softmax rows are not flat
  p.wk = fill(D * C, 1.5 / std::sqrt(double(D)));
  p.wv = fill(D * C, 1 / std::sqrt(double(D)));
  p.wout = fill(C * D, 1 / std::sqrt(double(C)));
  p.bq = c.bias ? fill(C, 0.3) : Vec(C, 0.0);
  p.bk = c.bias ? fill(C, 0.3) : Vec(C, 0.0);
  p.bv = c.bias ? fill(C, 0.3) : Vec(C, 0.0);
  p.bout = c.bias ? fill(D, 0.3) : Vec(D, 0.0);
  const Vec g = fill(B * T * D, 1.0);

  std::vector<float> x = to_float(p.x), wq = to_float(p.wq), wk = to_float(p.wk),
                     wv = to_float(p.wv), wout = to_float(p.wout), bq = to_float(p.bq),
                     bk = to_float(p.bk), bv = to_float(p.bv), bout = to_float(p.bout),
                     gf = to_float(g);
  const AttentionShape shape{B, T, D, c.heads, c.head_dim, 0, c.causal, nullptr};
  const AttentionParams w{
      wq.data(), c.bias ? bq.data() : nullptr, wk.data(),   c.bias ? bk.data() : nullptr,
      wv.data(), c.bias ? bv.data() : nullptr, wout.data(), c.bias ? bout.data() : nullptr};
  std::vector<float> y(B * T * D), q(B * T * C), k(B * T * C), v(B * T * C),
      attention(B * c.heads * T * T), concat(B * T * C), scores(T * T);
  const AttentionTensors tape{nullptr, q.data(),         k.data(),      v.data(),
                              nullptr, nullptr,          nullptr,       nullptr,
                              nullptr, attention.data(), concat.data(), {nullptr}};
  attention_forward(shape, w, x.data(), tape, y.data());
  ASSERT_TRUE(all_close(y.data(), forward(c, p), 1e-5, 1e-5)) << "forward";

  std::vector<std::vector<float>> got = {
      std::vector<float>(B * T * D), std::vector<float>(D * C), std::vector<float>(D * C),
      std::vector<float>(D * C),     std::vector<float>(C * D), std::vector<float>(C),
      std::vector<float>(C),         std::vector<float>(C),     std::vector<float>(D)};
  const AttentionGrads grads{got[1].data(), c.bias ? got[5].data() : nullptr,
                             got[2].data(), c.bias ? got[6].data() : nullptr,
                             got[3].data(), c.bias ? got[7].data() : nullptr,
                             got[4].data(), c.bias ? got[8].data() : nullptr};
  std::vector<float> dconcat(B * T * C), dq(B * T * C), dk(B * T * C), dv(B * T * C);
  std::vector<float> dx_query(B * T * D, 0.0f);
  const AttentionScratch scratch{dconcat.data(), dq.data(), dk.data(), dv.data(), scores.data()};
  attention_backward(shape, w, x.data(), tape, gf.data(), grads, scratch, got[0].data(),
                     dx_query.data());
  for (std::size_t i = 0; i < got[0].size(); ++i) got[0][i] += dx_query[i];

  Params ref = reference_backward(c, p, g);
  const std::vector<Vec*> refs = ref.all();
  std::vector<Vec*> params = p.all();
  const std::size_t count = c.bias ? 9 : 5;
  for (std::size_t t = 0; t < count; ++t) {
    // float32 kernel against double: errors grow with the sums' lengths (B*T terms), so 2e-5.
    EXPECT_TRUE(all_close(got[t].data(), *refs[t], 2e-5, 2e-5)) << kNames[t];
    // Central differences in double, at up to 24 elements per tensor spread over it.
    Vec& values = *params[t];
    const std::size_t n = values.size(), stride = std::max<std::size_t>(1, n / 24);
    std::vector<float> picked_got;
    Vec picked_fd, picked_ref;
    for (std::size_t i = 0; i < n; i += stride) {
      const double keep = values[i], h = 1e-5;
      values[i] = keep + h;
      const double up = loss(c, p, g);
      values[i] = keep - h;
      const double down = loss(c, p, g);
      values[i] = keep;
      picked_fd.push_back((up - down) / (2 * h));
      picked_ref.push_back((*refs[t])[i]);
      picked_got.push_back(got[t][i]);
    }
    std::vector<float> ref_as_float(picked_ref.begin(), picked_ref.end());
    EXPECT_TRUE(all_close(picked_got.data(), picked_fd, 5e-5, 5e-5))
        << kNames[t] << " vs finite differences";
    // The double reference against finite differences: truncation error O(h^2) ~ 1e-10.
    for (std::size_t i = 0; i < picked_fd.size(); ++i) {
      EXPECT_NEAR(picked_ref[i], picked_fd[i], 1e-7 + 1e-7 * std::fabs(picked_fd[i])) << kNames[t];
    }
  }
}

std::string name(const Case& c) {
  return "B" + std::to_string(c.batch) + " T" + std::to_string(c.tokens) + " D" +
         std::to_string(c.d_model) + " H" + std::to_string(c.heads) + " hd" +
         std::to_string(c.head_dim) + (c.causal ? " causal" : " full") +
         (c.bias ? " bias" : " nobias");
}

TEST(AttentionBackward, HeadDimOneToNine) {
  for (std::size_t hd = 1; hd <= 9; ++hd) {
    for (bool causal : {true, false}) {
      const Case c{2, 5, 3 + hd, 1 + hd % 3, hd, causal, hd % 2 == 1};
      SCOPED_TRACE(name(c));
      check_case(c, 100 + static_cast<std::uint32_t>(hd));
    }
  }
}

TEST(AttentionBackward, TokensOneToSeventeen) {
  for (std::size_t t = 1; t <= 17; ++t) {
    for (bool causal : {true, false}) {
      const Case c{2, t, 7, 2, 3, causal, true};
      SCOPED_TRACE(name(c));
      check_case(c, 200 + static_cast<std::uint32_t>(t));
    }
  }
}

TEST(AttentionBackward, PastTheAttentionTiles) {
  for (std::size_t t : {129, 131}) {
    for (bool causal : {true, false}) {
      const Case c{1, t, 6, 2, 3, causal, true};
      SCOPED_TRACE(name(c));
      check_case(c, 300 + static_cast<std::uint32_t>(t));
    }
  }
}

TEST(AttentionBackward, BatchOneToFiveOddWidths) {
  for (std::size_t b = 1; b <= 5; ++b) {
    const Case c{b, 6, 5 + 2 * b, 3, 3 + b, b % 2 == 0, b != 3};
    SCOPED_TRACE(name(c));
    check_case(c, 400 + static_cast<std::uint32_t>(b));
  }
}

}  // namespace
}  // namespace headwise::layers
