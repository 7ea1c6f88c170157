// A whole stack (embedding, positions, blocks of attention + MLP + LayerNorm, readout, masked
// cross-entropy) against an independent double-precision forward written as plain loops: the
// loss agrees, and every parameter's gradient agrees with central finite differences of that
// double loss, for every position kind, both masks, both readouts, 1 and 2 layers, tail sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "layers/positions/position_kind.hpp"
#include "layers/stack.hpp"
#include "test_helpers.hpp"

namespace headwise::layers {
namespace {

using Vec = std::vector<double>;
using Params = std::map<std::string, Vec>;

struct Problem {
  ModelSpec spec;
  std::size_t batch;
  std::vector<int> ids, targets;
  std::vector<std::uint8_t> mask;
};

// ---- the double reference: plain loops, nothing shared with the library but the names ----

Vec linear(const Vec& x, std::size_t rows, std::size_t in, std::size_t out, const Vec& w,
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

Vec layer_norm(const Vec& x, std::size_t rows, std::size_t w, const Vec& gain, const Vec& bias) {
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

// The rotation by position t of the pair (2i, 2i+1), angle t * 10000^(-2i / hd) (RoPE).
void rope(Vec& v, std::size_t at, std::size_t hd, std::size_t t) {
  for (std::size_t i = 0; 2 * i + 1 < hd; ++i) {
    const double a = double(t) * std::pow(10000.0, -2.0 * double(i) / double(hd));
    const double x = v[at + 2 * i], y = v[at + 2 * i + 1];
    v[at + 2 * i] = x * std::cos(a) - y * std::sin(a);
    v[at + 2 * i + 1] = x * std::sin(a) + y * std::cos(a);
  }
}

double reference_loss(const Problem& pr, const Params& P) {
  const ModelSpec& s = pr.spec;
  const std::size_t B = pr.batch, T = s.tokens, D = s.d_model, H = s.heads, hd = s.head_dim;
  const std::size_t C = H * hd;
  const std::string kind = s.position ? s.position->name : "none";
  auto p = [&](const std::string& n) -> const Vec& { return P.at(n); };
  auto has = [&](const std::string& n) { return P.count(n) > 0; };
  Vec x(B * T * D);
  for (std::size_t r = 0; r < B * T; ++r)
    for (std::size_t d = 0; d < D; ++d) {
      const std::size_t t = r % T;
      double v = p("tokenEmbedding")[std::size_t(pr.ids[r]) * D + d];
      if (kind == "learned") v += p("positionEmbedding")[t * D + d];
      if (kind == "sinusoidal") {
        const double a = double(t) / std::pow(10000.0, double(d - d % 2) / double(D));
        v += d % 2 == 0 ? std::sin(a) : std::cos(a);
      }
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
          rope(q, r * C + h * hd, hd, r % T), rope(k, r * C + h * hd, hd, r % T);
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
            if (kind == "alibi") {
              const double slope = std::pow(2.0, -8.0 * double(h + 1) / double(H));
              sc[j] -= slope * std::fabs(double(i) - double(j));
            }
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

// ---- the check ----

void check(const ModelSpec& spec, std::size_t batch, std::uint64_t seed) {
  std::unique_ptr<Stack> stack;
  ASSERT_TRUE(Stack::create(spec, batch, seed, &stack).is_ok());
  Problem pr{spec, batch, {}, {}, {}};
  const std::size_t reads = batch * spec.read_tokens();
  const std::vector<float> u = testing::random_vector(batch * spec.tokens + 2 * reads, seed + 7);
  for (std::size_t i = 0; i < batch * spec.tokens; ++i)
    pr.ids.push_back(int((u[i] + 1) * 0.5f * float(spec.vocab)) % int(spec.vocab));
  for (std::size_t r = 0; r < reads; ++r) {
    pr.targets.push_back(int((u[batch * spec.tokens + r] + 1) * 0.5f * float(spec.classes)) %
                         int(spec.classes));
    pr.mask.push_back(r == 0 || u[batch * spec.tokens + reads + r] > -0.4f);
  }
  // Random parameters everywhere (LayerNorm gains and biases too), exactly representable.
  float* values = stack->buffer(Slot::kValue);
  Params P;
  for (const TableEntry& e : stack->table().parameters) {
    const std::vector<float> r = testing::random_vector(std::size_t(e.size), seed * 31 + e.offset);
    const bool weight = e.row->role == Role::kWeight;
    const double scale = weight ? 1.5 / std::sqrt(double(e.dims[int(e.row->fan_in)])) : 0.5;
    Vec& v = P[e.name];
    for (std::size_t i = 0; i < r.size(); ++i) {
      const float f = float(r[i] * scale + (e.row->role == Role::kNormGain ? 1.0 : 0.0));
      values[e.offset + i] = f;
      v.push_back(f);
    }
  }
  const LossSums sums =
      stack->run(pr.ids.data(), batch, Targets{pr.targets.data(), pr.mask.data(), nullptr}, true);
  const double ref = reference_loss(pr, P);
  EXPECT_NEAR(sums.loss, ref, 2e-5 + 2e-5 * std::fabs(ref)) << "loss";
  const float* grads = stack->buffer(Slot::kGradient);
  for (const TableEntry& e : stack->table().parameters) {
    Vec& v = P[e.name];
    const std::size_t stride = std::max<std::size_t>(1, v.size() / 12);
    double worst = 0;
    for (std::size_t i = 0; i < v.size(); i += stride) {
      const double keep = v[i], h = 1e-5;
      v[i] = keep + h;
      const double up = reference_loss(pr, P);
      v[i] = keep - h;
      const double down = reference_loss(pr, P);
      v[i] = keep;
      const double fd = (up - down) / (2 * h), got = grads[e.offset + i];
      worst = std::max(worst, std::fabs(got - fd));
      EXPECT_NEAR(got, fd, 1e-4 + 1e-3 * std::fabs(fd)) << e.name << "[" << i << "]";
    }
  }
}

std::string describe(const ModelSpec& s, std::size_t batch) {
  return std::string(s.position ? s.position->name : "none") + " L" + std::to_string(s.layers) +
         " B" + std::to_string(batch) + " T" + std::to_string(s.tokens) + " D" +
         std::to_string(s.d_model) + " H" + std::to_string(s.heads) + " hd" +
         std::to_string(s.head_dim) + " M" + std::to_string(s.mlp) +
         (s.causal ? " causal" : " full") + (s.layer_norm ? " ln" : "") +
         (s.readout == Readout::kLast ? " last" : " every") +
         (s.activation == Activation::kGelu ? " gelu" : "") + (s.bias ? "" : " nobias");
}

ModelSpec spec_of(const char* position, std::size_t layers, std::size_t tokens, std::size_t d,
                  std::size_t heads, std::size_t hd, std::size_t mlp, bool causal, bool ln,
                  Readout readout) {
  ModelSpec s;
  s.vocab = 7;
  s.classes = 5;
  s.tokens = tokens;
  s.d_model = d;
  s.heads = heads;
  s.head_dim = hd;
  s.layers = layers;
  s.mlp = mlp;
  s.position = find_position_kind(position);
  s.causal = causal;
  s.layer_norm = ln;
  s.readout = readout;
  return s;
}

TEST(LayerStack, EveryPositionKindBothMasksBothReadouts) {
  std::uint64_t seed = 1;
  for (const PositionKind* const* k = position_kinds(); *k; ++k) {
    for (bool causal : {true, false}) {
      for (Readout readout : {Readout::kLast, Readout::kEvery}) {
        for (std::size_t layers : {1, 2}) {
          const ModelSpec s = spec_of((*k)->name, layers, 5, 6, 2, 3, layers == 1 ? 7 : 0, causal,
                                      layers == 2, readout);
          SCOPED_TRACE(describe(s, 2));
          check(s, 2, seed++);
        }
      }
    }
  }
}

TEST(LayerStack, HeadDimOneToNine) {
  for (std::size_t hd = 1; hd <= 9; ++hd) {
    ModelSpec s = spec_of(hd % 2 ? "learned" : "sinusoidal", 2, 4, 3 + hd, 1 + hd % 3, hd, 5,
                          hd % 3 != 0, hd % 2 == 0, hd % 4 == 0 ? Readout::kLast : Readout::kEvery);
    s.activation = hd % 2 ? Activation::kRelu : Activation::kGelu;
    s.bias = hd != 4;
    SCOPED_TRACE(describe(s, 2));
    check(s, 2, 100 + hd);
  }
}

TEST(LayerStack, TokensOneToSeventeen) {
  for (std::size_t t = 1; t <= 17; ++t) {
    const ModelSpec s = spec_of("learned", 2, t, 5, 2, 3, 4, t % 2 == 0, t % 3 == 0,
                                t % 2 ? Readout::kLast : Readout::kEvery);
    SCOPED_TRACE(describe(s, 1));
    check(s, 1, 200 + t);
  }
}

TEST(LayerStack, BatchOneToFiveOddWidths) {
  for (std::size_t b = 1; b <= 5; ++b) {
    const ModelSpec s = spec_of("sinusoidal", 1 + b % 2, 6, 5 + 2 * b, 3, 3 + b % 3, 3 + b,
                                b % 2 == 0, b == 3, Readout::kEvery);
    SCOPED_TRACE(describe(s, b));
    check(s, b, 300 + b);
  }
}

}  // namespace
}  // namespace headwise::layers
