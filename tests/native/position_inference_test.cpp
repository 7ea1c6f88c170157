// The inference layer with each position kind (Config::position) against its definition in
// plain double loops: positions added to x (learned: the seeded table; sinusoidal: sin / cos),
// q and k rotated by position with v untouched (RoPE), a per-head linear bias on the scores
// (ALiBi); at sizes on both sides of the short kernel and with odd head sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "attention_options.hpp"
#include "layers/positions/position_kind.hpp"
#include "model.hpp"
#include "reference_mha.hpp"
#include "reference_positions.hpp"
#include "rng.hpp"
#include "shape_trace.hpp"
#include "test_helpers.hpp"

namespace headwise {
namespace {

struct Shape {
  std::int64_t b, t, d, h, hd;
  bool causal;
};
const Shape kShapes[] = {{2, 6, 6, 2, 0, true},
                         {1, 9, 10, 2, 5, false},
                         {3, 20, 16, 4, 0, true},
                         {1, 33, 24, 3, 0, false}};

TEST(PositionInference, EveryKindMatchesItsDefinitionInDoubles) {
  for (const Shape& sh : kShapes) {
    // Every kind the registry lists; each needs its double definition below.
    for (const char* const* name = layers::position_kind_names(); *name; ++name) {
      const char* kind = *name;
      SCOPED_TRACE(std::string(kind) + " T=" + std::to_string(sh.t));
      AttentionOptions o;
      o.batch = double(sh.b), o.tokens = double(sh.t), o.d_model = double(sh.d);
      o.heads = double(sh.h), o.head_dim = double(sh.hd), o.causal = sh.causal;
      o.positions = kind;
      Limits limits;
      Config c;
      ASSERT_TRUE(config_from_options(o, &limits, &c).is_ok());
      std::unique_ptr<Model> m;
      ASSERT_TRUE(Model::create(c, limits, 7, &m).is_ok());
      const layers::AttentionShape& d = m->shape();
      const std::size_t BTD = d.batch * d.tokens * d.d_model;
      fill_uniform(m->tensor(TensorId::kInput), BTD, 3, tensor_row(TensorId::kInput).stream, 1.0f);
      ASSERT_TRUE(m->keep_intermediates(true).is_ok());
      ASSERT_TRUE(m->run(Step::kForwardFused).is_ok());
      // What enters the reference: x, plus the kind's rows for a kind that enters at the input.
      std::vector<float> x(m->tensor(TensorId::kInput), m->tensor(TensorId::kInput) + BTD);
      const std::string k(kind);
      ASSERT_TRUE(testing::has_double_definition(k))
          << "no double definition of position kind \"" << k << "\" in this test";
      if (k == "learned" || k == "sinusoidal") {
        const float* p = m->tensor(TensorId::kPositions);
        ASSERT_EQ(m->tensor_size(TensorId::kPositions), d.tokens * d.d_model);
        for (std::size_t t = 0; t < d.tokens; ++t)
          for (std::size_t e = 0; e < d.d_model; ++e) {
            if (k == "sinusoidal")
              ASSERT_NEAR(p[t * d.d_model + e], testing::sinusoid(t, e, d.d_model), 1e-6);
            else
              ASSERT_LE(std::fabs(p[t * d.d_model + e]), std::sqrt(3.0f));
          }
        for (std::size_t i = 0; i < BTD; ++i) x[i] += p[i % (d.tokens * d.d_model)];
      } else {
        EXPECT_EQ(m->tensor_size(TensorId::kPositions), 0u);
      }
      testing::RefPositions hooks;
      if (k == "rope") hooks.rotate = testing::rope;
      if (k == "alibi") hooks.bias = testing::alibi;
      const testing::RefWeights w{m->tensor(TensorId::kWq),
                                  m->tensor(TensorId::kWk),
                                  m->tensor(TensorId::kWv),
                                  m->tensor(TensorId::kWout),
                                  nullptr,
                                  nullptr,
                                  nullptr,
                                  nullptr};
      const testing::RefResult ref = testing::reference_mha(
          {d.batch, d.tokens, d.d_model, d.heads, d.head_dim, d.causal}, w, x.data(), hooks);
      EXPECT_TRUE(testing::all_close(m->tensor(TensorId::kQHeads), ref.q_heads, 2e-5, 2e-5));
      EXPECT_TRUE(testing::all_close(m->tensor(TensorId::kKHeads), ref.k_heads, 2e-5, 2e-5));
      EXPECT_TRUE(testing::all_close(m->tensor(TensorId::kVHeads), ref.v_heads, 2e-5, 2e-5));
      EXPECT_TRUE(testing::all_close(m->tensor(TensorId::kScores), ref.scores, 2e-5, 2e-5));
      EXPECT_TRUE(testing::all_close(m->tensor(TensorId::kAttention), ref.attention, 2e-5, 2e-5));
      EXPECT_TRUE(testing::all_close(m->tensor(TensorId::kOutput), ref.output, 2e-5, 2e-5));
      if (k == "alibi") {
        const float* bias = m->tensor(TensorId::kScoreBias);
        for (std::size_t h = 0; h < d.heads; ++h)
          for (std::size_t i = 0; i < d.tokens; ++i)
            for (std::size_t j = 0; j < d.tokens; ++j)
              ASSERT_NEAR(bias[(h * d.tokens + i) * d.tokens + j], testing::alibi(h, d.heads, i, j),
                          1e-6);
      }
      // Without intermediates the fast kernels (with ALiBi, the rows path) give the same outputs.
      ASSERT_TRUE(m->keep_intermediates(false).is_ok());
      ASSERT_TRUE(m->run(Step::kForwardFused).is_ok());
      EXPECT_TRUE(testing::all_close(m->tensor(TensorId::kOutput), ref.output, 2e-5, 2e-5));
    }
  }
}

TEST(PositionInference, OptionsAreCheckedInWords) {
  AttentionOptions o;
  Limits limits;
  Config c;
  o.positions = "fourier";
  std::string kinds;  // the registry's names, as the message lists them
  for (const char* const* name = layers::position_kind_names(); *name; ++name)
    kinds += std::string(kinds.empty() ? "" : ", ") + "\"" + *name + "\"";
  EXPECT_EQ(config_from_options(o, &limits, &c).message(),
            "positions must be one of " + kinds + ", got \"fourier\"");
  o = {};
  o.seed = -1;
  EXPECT_EQ(config_from_options(o, &limits, &c).message(),
            "seed must be a whole number between 0 and 4294967295, got -1");
  o = {};
  o.batch = 0;
  EXPECT_EQ(config_from_options(o, &limits, &c).message(), "batch must be at least 1 (got 0)");
  o = {};
  o.memory_budget = 1000;
  ASSERT_TRUE(config_from_options(o, &limits, &c).is_ok());
  EXPECT_EQ(limits.memory_budget_bytes, 1000u);
  o = {};
  o.positions = "rope";
  ASSERT_TRUE(config_from_options(o, &limits, &c).is_ok());
  std::unique_ptr<Model> m;
  ASSERT_TRUE(Model::create(c, Limits{}, 0, &m).is_ok());
  EXPECT_EQ(m->run(Step::kForwardLoop).message(),
            "the loop version has no rope positions: use the fused forward pass");
}

// A part of a layer split by heads (heads 3 and 4 of 5): its scores carry ALiBi's slopes of those
// heads in the whole layer, in the kept bias and in the scores the attention is computed from.
TEST(PositionInference, APartOfALayerKeepsItsHeadsAlibiSlopes) {
  AttentionOptions o;
  o.tokens = 7, o.d_model = 10, o.heads = 2, o.head_dim = 4, o.causal = false;
  o.positions = "alibi", o.head_offset = 3, o.total_heads = 5;
  Limits limits;
  Config c;
  ASSERT_TRUE(config_from_options(o, &limits, &c).is_ok());
  std::unique_ptr<Model> m;
  ASSERT_TRUE(Model::create(c, limits, 7, &m).is_ok());
  const layers::AttentionShape& d = m->shape();
  fill_uniform(m->tensor(TensorId::kInput), d.tokens * d.d_model, 3,
               tensor_row(TensorId::kInput).stream, 1.0f);
  ASSERT_TRUE(m->keep_intermediates(true).is_ok());
  ASSERT_TRUE(m->run(Step::kForwardFused).is_ok());
  const float* q = m->tensor(TensorId::kQHeads);
  const float* k = m->tensor(TensorId::kKHeads);
  const std::size_t T = d.tokens, hd = d.head_dim;
  for (std::size_t h = 0; h < d.heads; ++h)
    for (std::size_t i = 0; i < T; ++i)
      for (std::size_t j = 0; j < T; ++j) {
        const double bias = testing::alibi(3 + h, 5, i, j);
        double dot = 0;
        for (std::size_t e = 0; e < hd; ++e)
          dot += double(q[(h * T + i) * hd + e]) * k[(h * T + j) * hd + e];
        ASSERT_NEAR(m->tensor(TensorId::kScoreBias)[(h * T + i) * T + j], bias, 1e-6);
        ASSERT_NEAR(m->tensor(TensorId::kScores)[(h * T + i) * T + j],
                    dot / std::sqrt(double(hd)) + bias, 1e-5 + 1e-5 * std::fabs(bias));
      }
  o.head_offset = 4;
  EXPECT_EQ(config_from_options(o, &limits, &c).message(),
            "headOffset + heads (6) must be at most totalHeads (5)");
  o.total_heads = 0, o.head_offset = 1;
  EXPECT_EQ(config_from_options(o, &limits, &c).message(),
            "headOffset + heads (3) must be at most totalHeads (2, which is heads when left out)");
}

}  // namespace
}  // namespace headwise
