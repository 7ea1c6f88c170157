// The double reference of a layer stack (tests/native/layers_stack_test.cpp, the stack fuzz
// target): plain loops in double precision, nothing shared with the library but the parameter
// names and the spec. The loss of a batch from a map of named parameters.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "layers/model_spec.hpp"
#include "layers/positions/position_kind.hpp"
#include "reference_positions.hpp"

namespace headwise::layers::reference {

using Vec = std::vector<double>;
using Params = std::map<std::string, Vec>;

struct Problem {
  ModelSpec spec;
  std::size_t batch;
  std::vector<int> ids, targets;
  std::vector<std::uint8_t> mask;
};

inline Vec linear(const Vec& x, std::size_t rows, std::size_t in, std::size_t out, const Vec& w,
                  const Vec* b) {
  Vec y(rows * out);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < out; ++j) {
      double acc = b ? (*b)[j] : 0.0;
      for (std::size_t i = 0; i < in; ++i) acc += x[r * in + i] * w[i * out + j];
      y[r * out + j] = acc;
    }
  return y;
}

inline Vec layer_norm(const Vec& x, std::size_t rows, std::size_t w, const Vec& gain,
                      const Vec& bias) {
  Vec y(x.size());
  for (std::size_t r = 0; r < rows; ++r) {
    double m = 0, v = 0;
    for (std::size_t i = 0; i < w; ++i) m += x[r * w + i];
    m /= double(w);
    for (std::size_t i = 0; i < w; ++i) v += (x[r * w + i] - m) * (x[r * w + i] - m);
    v /= double(w);
    for (std::size_t i = 0; i < w; ++i)
      y[r * w + i] = (x[r * w + i] - m) / std::sqrt(v + 1e-5) * gain[i] + bias[i];
  }
  return y;
}

inline double reference_loss(const Problem& pr, const Params& P) {
  const ModelSpec& s = pr.spec;
  const std::size_t B = pr.batch, T = s.tokens, D = s.d_model, H = s.heads, hd = s.head_dim;
  const std::size_t C = H * hd;
  const std::string kind = s.position ? s.position->name : "none";
  if (!testing::has_double_definition(kind))
    throw std::invalid_argument("no double definition of position kind \"" + kind + "\" here");
  auto p = [&](const std::string& n) -> const Vec& { return P.at(n); };
  auto has = [&](const std::string& n) { return P.count(n) > 0; };
  Vec x(B * T * D);
  for (std::size_t r = 0; r < B * T; ++r)
    for (std::size_t d = 0; d < D; ++d) {
      const std::size_t t = r % T;
      double v = p("tokenEmbedding")[std::size_t(pr.ids[r]) * D + d];
      if (kind == "learned") v += p("positionEmbedding")[t * D + d];
      if (kind == "sinusoidal") v += testing::sinusoid(t, d, D);
      x[r * D + d] = v;
    }
  std::size_t rows_per = T;  // rows per sequence in x
  for (std::size_t l = 0; l < s.layers; ++l) {
    const std::string b = "blocks." + std::to_string(l) + ".";
    const std::size_t Tl = l + 1 == s.layers ? s.read_tokens() : T, qf = T - Tl;
    const Vec a = s.layer_norm ? layer_norm(x, B * T, D, p(b + "ln1.gain"), p(b + "ln1.bias")) : x;
    auto bias = [&](const char* n) { return s.bias ? &p(b + n) : nullptr; };
    Vec q = linear(a, B * T, D, C, p(b + "wq"), bias("bq"));
    Vec k = linear(a, B * T, D, C, p(b + "wk"), bias("bk"));
    const Vec v = linear(a, B * T, D, C, p(b + "wv"), bias("bv"));
    if (kind == "rope") {
      for (std::size_t r = 0; r < B * T; ++r)
        for (std::size_t h = 0; h < H; ++h)
          testing::rope(r % T, &q[r * C + h * hd], hd),
              testing::rope(r % T, &k[r * C + h * hd], hd);
    }
    Vec cat(B * Tl * C, 0.0);
    for (std::size_t bb = 0; bb < B; ++bb)
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t i = qf; i < T; ++i) {
          const std::size_t n = s.causal ? i + 1 : T;
          Vec sc(n);
          double mx = -1e300, sum = 0;
          for (std::size_t j = 0; j < n; ++j) {
            double dot = 0;
            for (std::size_t d = 0; d < hd; ++d)
              dot += q[(bb * T + i) * C + h * hd + d] * k[(bb * T + j) * C + h * hd + d];
            sc[j] = dot / std::sqrt(double(hd));
            if (kind == "alibi") sc[j] += testing::alibi(h, H, i, j);
            mx = std::max(mx, sc[j]);
          }
          for (double& e : sc) sum += (e = std::exp(e - mx));
          for (std::size_t j = 0; j < n; ++j)
            for (std::size_t d = 0; d < hd; ++d)
              cat[(bb * Tl + i - qf) * C + h * hd + d] +=
                  sc[j] / sum * v[(bb * T + j) * C + h * hd + d];
        }
    Vec h = linear(cat, B * Tl, C, D, p(b + "wOut"), bias("bOut"));
    for (std::size_t bb = 0; bb < B; ++bb)
      for (std::size_t i = 0; i < Tl * D; ++i)
        h[bb * Tl * D + i] += x[(bb * rows_per + qf) * D + i];
    x = h;
    rows_per = Tl;
    if (s.mlp == 0) continue;
    const Vec in =
        s.layer_norm ? layer_norm(x, B * Tl, D, p(b + "ln2.gain"), p(b + "ln2.bias")) : x;
    Vec z = linear(in, B * Tl, D, s.mlp, p(b + "w1"), bias("b1"));
    for (double& e : z)
      e = s.activation == Activation::kGelu ? 0.5 * e * (1 + std::erf(e / std::sqrt(2.0)))
                                            : std::max(e, 0.0);
    const Vec y = linear(z, B * Tl, s.mlp, D, p(b + "w2"), bias("b2"));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += y[i];
  }
  const std::size_t rows = B * rows_per;
  const Vec xf = s.layer_norm ? layer_norm(x, rows, D, p("lnF.gain"), p("lnF.bias")) : x;
  const Vec logits =
      linear(xf, rows, D, s.classes, p("wReadout"), has("bReadout") ? &p("bReadout") : nullptr);
  double loss = 0;
  std::size_t counted = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    if (!pr.mask[r]) continue;
    double mx = -1e300, sum = 0;
    for (std::size_t j = 0; j < s.classes; ++j) mx = std::max(mx, logits[r * s.classes + j]);
    for (std::size_t j = 0; j < s.classes; ++j) sum += std::exp(logits[r * s.classes + j] - mx);
    loss += std::log(sum) - (logits[r * s.classes + std::size_t(pr.targets[r])] - mx);
    ++counted;
  }
  return loss / double(counted);
}

}  // namespace headwise::layers::reference
