// Multi-head latent attention (layers/latent_attention.hpp) against the mechanism written out in
// plain double loops (latent, per-head up-projections, decoupled RoPE key shared by the heads),
// at tail sizes; the explicit and absorbed forms against each other; decoding with the latent
// cache against the forward pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "layers/latent_attention.hpp"
#include "reference_positions.hpp"
#include "test_helpers.hpp"

namespace headwise::layers {
namespace {

using testing::all_close;
using Vec = std::vector<double>;
using Floats = std::vector<float>;

struct Weights {
  Floats w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, w_out;
  LatentParams params() const {
    return {w_dkv.data(), w_uk.data(), w_uv.data(), w_q.data(),
            w_qr.data(),  w_kr.data(), w_out.data()};
  }
};

Weights random_weights(const LatentShape& s, std::uint64_t seed) {
  const std::size_t D = s.d_model, H = s.heads, dh = s.head_dim, dc = s.kv_latent, dr = s.rope_dim;
  const auto w = [&](std::size_t rows, std::size_t cols, std::uint64_t stream) {
    return testing::random_vector(rows * cols, seed * 16 + stream,
                                  float(1.5 / std::sqrt(double(rows))));
  };
  return {w(D, dc, 1),     w(dc, H * dh, 2), w(dc, H * dh, 3), w(D, H * dh, 4),
          w(D, H * dr, 5), w(D, dr, 6),      w(H * dh, D, 7)};
}

// (rows, n) = (rows, k) x (k, n), doubles.
Vec mul(const Vec& a, const Floats& b, std::size_t rows, std::size_t k, std::size_t n) {
  Vec out(rows * n, 0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < k; ++i)
      for (std::size_t j = 0; j < n; ++j) out[r * n + j] += a[r * k + i] * double(b[i * n + j]);
  return out;
}

// The mechanism as the paper writes it, every head's keys and values explicit.
Vec reference(const LatentShape& s, const Weights& w, const Floats& x) {
  const std::size_t T = s.tokens, D = s.d_model, H = s.heads, dh = s.head_dim, dc = s.kv_latent,
                    dr = s.rope_dim, C = H * dh;
  Vec y;
  for (std::size_t b = 0; b < s.batch; ++b) {
    const Vec xb(x.begin() + b * T * D, x.begin() + (b + 1) * T * D);
    const Vec c = mul(xb, w.w_dkv, T, D, dc);
    const Vec k = mul(c, w.w_uk, T, dc, C), v = mul(c, w.w_uv, T, dc, C);
    const Vec q = mul(xb, w.w_q, T, D, C);
    Vec q_r = mul(xb, w.w_qr, T, D, H * dr), k_r = mul(xb, w.w_kr, T, D, dr);
    for (std::size_t t = 0; t < T; ++t) {
      testing::rope(t, &k_r[t * dr], dr);
      for (std::size_t h = 0; h < H; ++h) testing::rope(t, &q_r[(t * H + h) * dr], dr);
    }
    Vec concat(T * C, 0.0);
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < T; ++i) {
        const std::size_t n = s.causal ? i + 1 : T;
        Vec p(n);
        double mx = -1e300, sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
          double dot = 0;
          for (std::size_t e = 0; e < dh; ++e) dot += q[i * C + h * dh + e] * k[j * C + h * dh + e];
          for (std::size_t e = 0; e < dr; ++e) dot += q_r[(i * H + h) * dr + e] * k_r[j * dr + e];
          p[j] = dot / std::sqrt(double(dh + dr));
          mx = std::max(mx, p[j]);
        }
        for (std::size_t j = 0; j < n; ++j) sum += (p[j] = std::exp(p[j] - mx));
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t e = 0; e < dh; ++e)
            concat[i * C + h * dh + e] += p[j] / sum * v[j * C + h * dh + e];
      }
    const Vec yb = mul(concat, w.w_out, T, C, D);
    y.insert(y.end(), yb.begin(), yb.end());
  }
  return y;
}

struct Outputs {
  Floats explicit_y, absorbed_y, c, k_r;
};

Outputs run_both(const LatentShape& s, const Weights& w, const Floats& x) {
  const std::size_t rows = s.batch * s.tokens;
  Outputs o{Floats(rows * s.d_model), Floats(rows * s.d_model), Floats(rows * s.kv_latent),
            Floats(rows * s.rope_dim)};
  Floats absorbed(latent_absorbed_floats(s).value());
  const LatentAbsorbed a{absorbed.data(), absorbed.data() + absorbed.size() / 2};
  absorb_latent_weights(s, w.params(), a);
  Floats work(std::max(latent_workspace_floats(s, false).value(),
                       latent_workspace_floats(s, true).value()));
  latent_forward_explicit(s, w.params(), x.data(), {o.c.data(), o.k_r.data(), nullptr, work.data()},
                          o.explicit_y.data());
  Floats c2(o.c.size()), k_r2(o.k_r.size());
  latent_forward_absorbed(s, w.params(), a, x.data(),
                          {c2.data(), k_r2.data(), nullptr, work.data()}, o.absorbed_y.data());
  EXPECT_EQ(c2, o.c);
  EXPECT_EQ(k_r2, o.k_r);
  return o;
}

// max |a - b| / max |b|: the relative difference of two outputs as a whole.
double relative(const Floats& a, const Floats& b) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::fabs(double(a[i]) - double(b[i])));
    scale = std::max(scale, std::fabs(double(b[i])));
  }
  return diff / scale;
}

std::string name(const LatentShape& s) {
  return "B" + std::to_string(s.batch) + " T" + std::to_string(s.tokens) + " D" +
         std::to_string(s.d_model) + " H" + std::to_string(s.heads) + " dh" +
         std::to_string(s.head_dim) + " dc" + std::to_string(s.kv_latent) + " dr" +
         std::to_string(s.rope_dim) + (s.causal ? " causal" : " full");
}

const LatentShape kCases[] = {
    {1, 1, 5, 2, 3, 4, 2, true},      {2, 7, 10, 3, 5, 6, 4, true}, {2, 9, 12, 4, 3, 7, 3, false},
    {1, 17, 9, 2, 8, 16, 0, true},    {3, 16, 6, 5, 2, 3, 6, true}, {1, 40, 16, 4, 16, 32, 8, true},
    {1, 130, 24, 4, 8, 20, 6, false},
};

TEST(LatentAttention, BothFormsMatchTheMechanismWrittenOut) {
  for (const LatentShape& s : kCases) {
    SCOPED_TRACE(name(s));
    const Weights w = random_weights(s, s.tokens);
    const Floats x = testing::random_vector(s.batch * s.tokens * s.d_model, 90 + s.tokens);
    const Outputs o = run_both(s, w, x);
    const Vec ref = reference(s, w, x);
    EXPECT_TRUE(all_close(o.explicit_y.data(), ref, 1e-5, 1e-5)) << "explicit";
    EXPECT_TRUE(all_close(o.absorbed_y.data(), ref, 1e-5, 1e-5)) << "absorbed";
  }
}

// The two forms are one function: within 1e-6 of the output's largest value, at the test sizes
// and at DeepSeek-V2's per-head sizes (d_h 128, d_c 512, d_r 64) with 4 heads.
TEST(LatentAttention, ExplicitAndAbsorbedAgreeWithin1e6Relative) {
  std::vector<LatentShape> cases(std::begin(kCases), std::end(kCases));
  cases.push_back({1, 33, 256, 4, 128, 512, 64, true});
  for (const LatentShape& s : cases) {
    SCOPED_TRACE(name(s));
    const Weights w = random_weights(s, 5);
    const Floats x = testing::random_vector(s.batch * s.tokens * s.d_model, 6);
    const Outputs o = run_both(s, w, x);
    const double r = relative(o.absorbed_y, o.explicit_y);
    EXPECT_LE(r, 1e-6);
    std::printf("  %s: max |absorbed - explicit| / max |explicit| = %.3g\n", name(s).c_str(), r);
  }
}

TEST(LatentAttention, DecodingWithTheLatentCacheEqualsTheForwardPass) {
  for (const LatentShape& full : kCases) {
    if (!full.causal) continue;
    SCOPED_TRACE(name(full));
    const Weights w = random_weights(full, 3);
    const Floats x = testing::random_vector(full.batch * full.tokens * full.d_model, 4);
    const Outputs o = run_both(full, w, x);
    LatentShape s = full;
    const std::size_t B = s.batch, T = s.tokens, D = s.d_model;
    Floats absorbed(latent_absorbed_floats(s).value());
    const LatentAbsorbed a{absorbed.data(), absorbed.data() + absorbed.size() / 2};
    absorb_latent_weights(s, w.params(), a);
    Floats c(B * T * s.kv_latent), k_r(B * T * s.rope_dim),
        work(latent_decode_floats(s, T).value());
    LatentCacheView cache{c.data(), k_r.data(), T, 0};
    for (std::size_t t = 0; t < T; ++t) {
      Floats token(B * D), y(B * D);
      Vec expected;
      for (std::size_t b = 0; b < B; ++b) {
        std::copy_n(x.data() + (b * T + t) * D, D, token.data() + b * D);
        expected.insert(expected.end(), o.explicit_y.begin() + (b * T + t) * D,
                        o.explicit_y.begin() + (b * T + t + 1) * D);
      }
      latent_decode_step(s, w.params(), a, &cache, token.data(), work.data(), y.data());
      EXPECT_TRUE(all_close(y.data(), expected, 1e-5, 1e-5)) << "position " << t;
    }
    EXPECT_EQ(cache.length, T);
    // The cache holds what the forward pass computed: the latent and the RoPE key.
    EXPECT_TRUE(all_close(c.data(), Vec(o.c.begin(), o.c.end()), 1e-6, 1e-6));
    EXPECT_TRUE(all_close(k_r.data(), Vec(o.k_r.begin(), o.k_r.end()), 1e-6, 1e-6));
  }
}

// The explicit form's backward against central differences of the double mechanism, L = sum(y G).
TEST(LatentAttention, GradientsMatchCentralDifferencesOfTheDoubleMechanism) {
  const LatentShape cases[] = {
      {2, 6, 7, 3, 4, 5, 4, true}, {1, 9, 8, 2, 3, 6, 0, false}, {2, 5, 6, 4, 2, 3, 6, true}};
  for (const LatentShape& s : cases) {
    SCOPED_TRACE(name(s));
    Weights w = random_weights(s, 8);
    Floats x = testing::random_vector(s.batch * s.tokens * s.d_model, 9);
    const Floats gf = testing::random_vector(s.batch * s.tokens * s.d_model, 10);
    const std::size_t rows = s.batch * s.tokens;
    Floats y(rows * s.d_model), c(rows * s.kv_latent), k_r(rows * s.rope_dim),
        attention(s.batch * s.heads * s.tokens * s.tokens),
        work(latent_workspace_floats(s, false).value());
    latent_forward_explicit(s, w.params(), x.data(),
                            {c.data(), k_r.data(), attention.data(), work.data()}, y.data());
    std::vector<Floats> grads = {
        Floats(w.w_dkv.size()), Floats(w.w_uk.size()), Floats(w.w_uv.size()),  Floats(w.w_q.size()),
        Floats(w.w_qr.size()),  Floats(w.w_kr.size()), Floats(w.w_out.size()), Floats(x.size())};
    Floats back(latent_backward_floats(s).value());
    latent_backward(s, w.params(), x.data(), attention.data(), gf.data(),
                    {grads[0].data(), grads[1].data(), grads[2].data(), grads[3].data(),
                     grads[4].data(), grads[5].data(), grads[6].data()},
                    back.data(), grads[7].data());
    std::vector<Floats*> values = {&w.w_dkv, &w.w_uk, &w.w_uv,  &w.w_q,
                                   &w.w_qr,  &w.w_kr, &w.w_out, &x};
    const char* names[] = {"dW_dkv", "dW_uk", "dW_uv", "dW_q", "dW_qr", "dW_kr", "dW_out", "dx"};
    const auto loss = [&] {
      const Vec out = reference(s, w, x);
      double l = 0;
      for (std::size_t i = 0; i < out.size(); ++i) l += out[i] * gf[i];
      return l;
    };
    for (std::size_t t = 0; t < values.size(); ++t) {
      Floats& v = *values[t];
      const std::size_t stride = std::max<std::size_t>(1, v.size() / 16);
      for (std::size_t i = 0; i < v.size(); i += stride) {
        // Steps of 2^-10, exact in float, on the float parameters the double reference reads.
        const float keep = v[i], h = 1.0f / 1024;
        v[i] = keep + h;
        const double up = loss();
        v[i] = keep - h;
        const double down = loss();
        v[i] = keep;
        const double fd = (up - down) / (2.0 * h);
        EXPECT_NEAR(grads[t][i], fd, 5e-5 + 5e-4 * std::fabs(fd)) << names[t] << "[" << i << "]";
      }
    }
  }
}

}  // namespace
}  // namespace headwise::layers
