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
#include "reference_stack.hpp"
#include "test_helpers.hpp"

namespace headwise::layers {
namespace {

using reference::Params;
using reference::Problem;
using reference::reference_loss;
using reference::Vec;

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
