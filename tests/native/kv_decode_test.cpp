// Decoding with a KV cache (layers/kv_cache.hpp through Model::decode): N steps give the causal
// forward pass of the N positions within 1e-5 + 1e-5 |ref| (both float32; the step's scores are
// one row of the rows kernel, the forward's come from the tiled or short kernels), for MHA, GQA
// and MQA, every position kind, batch > 1, past the 128-key tiles; and against the double
// reference. The cache is counted in the memory budget and refused past it in words; a full
// cache is refused; the layer works after every refusal.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "attention_options.hpp"
#include "layers/positions/position_kind.hpp"
#include "model.hpp"
#include "reference_kv.hpp"
#include "test_helpers.hpp"

namespace headwise {
namespace {

using testing::all_close;
using Vec = std::vector<double>;

std::unique_ptr<Model> make(double batch, double tokens, double d_model, double heads,
                            double kv_heads, const char* positions, bool bias, double budget = 0) {
  AttentionOptions o;
  o.batch = batch, o.tokens = tokens, o.d_model = d_model, o.heads = heads;
  o.kv_heads = kv_heads, o.positions = positions, o.bias = bias, o.seed = 3;
  o.memory_budget = budget;
  Limits limits;
  Config config;
  std::unique_ptr<Model> m;
  Status s = config_from_options(o, &limits, &config);
  if (s.is_ok()) s = Model::create(config, limits, 3, &m);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return m;
}

// Writes x, runs the forward pass; then decodes every position and compares it with the forward's.
void check_decode_equals_forward(Model& m, std::uint64_t seed) {
  const layers::AttentionShape& s = m.shape();
  const std::size_t B = s.batch, T = s.tokens, D = s.d_model;
  const std::vector<float> x = testing::random_vector(B * T * D, seed);
  std::copy(x.begin(), x.end(), m.tensor(TensorId::kInput));
  ASSERT_TRUE(m.run(Step::kForwardFused).is_ok());
  const std::vector<float> y(m.tensor(TensorId::kOutput), m.tensor(TensorId::kOutput) + B * T * D);
  m.reset_cache();
  for (std::size_t t = 0; t < T; ++t) {
    ASSERT_TRUE(m.prepare_decode().is_ok());
    for (std::size_t b = 0; b < B; ++b)
      std::copy_n(x.data() + (b * T + t) * D, D, m.decode_input() + b * D);
    ASSERT_TRUE(m.decode().is_ok());
    ASSERT_EQ(m.cache_length(), t + 1);
    Vec expected;
    for (std::size_t b = 0; b < B; ++b)
      expected.insert(expected.end(), y.begin() + (b * T + t) * D, y.begin() + (b * T + t + 1) * D);
    EXPECT_TRUE(all_close(m.decode_output(), expected, 1e-5, 1e-5)) << "position " << t;
  }
  EXPECT_EQ(m.cache_bytes(), 2ull * B * T * s.kv() * s.head_dim * sizeof(float));
}

TEST(KvDecode, StepsEqualTheCausalForwardForEveryKindAndSharing) {
  for (const char* const* kind = layers::position_kind_names(); *kind; ++kind) {
    const char* positions = *kind;
    for (double kv : {4.0, 2.0, 1.0}) {
      for (bool bias : {false, true}) {
        SCOPED_TRACE(std::string(positions) + " kvHeads " + std::to_string(int(kv)) +
                     (bias ? " bias" : ""));
        auto m = make(2, 13, 12, 4, kv, positions, bias);
        check_decode_equals_forward(*m, 40 + std::uint64_t(kv));
      }
    }
  }
}

TEST(KvDecode, PastTheTilesAndWideHeads) {
  for (double kv : {8.0, 2.0, 1.0}) {
    SCOPED_TRACE("kvHeads " + std::to_string(int(kv)));
    auto m = make(1, 133, 64, 8, kv, "rope", true);
    check_decode_equals_forward(*m, 7);
  }
}

TEST(KvDecode, StepsMatchTheDoubleReference) {
  const testing::KvCase c{2, 17, 12, 6, 3, 2, 0, true, true};
  auto m = make(2, 17, 12, 6, 3, "none", true);
  const std::size_t D = c.d_model, C = c.concat(), Ck = c.kv_concat(), T = c.tokens;
  const auto as_vec = [&](TensorId id) {
    return Vec(m->tensor(id), m->tensor(id) + m->tensor_size(id));
  };
  testing::KvParams p{Vec(),
                      as_vec(TensorId::kWq),
                      as_vec(TensorId::kWk),
                      as_vec(TensorId::kWv),
                      as_vec(TensorId::kWout),
                      as_vec(TensorId::kBq),
                      as_vec(TensorId::kBk),
                      as_vec(TensorId::kBv),
                      as_vec(TensorId::kBout)};
  ASSERT_EQ(p.wk.size(), D * Ck);
  ASSERT_EQ(p.wq.size(), D * C);
  const std::vector<float> x = testing::random_vector(c.batch * T * D, 5);
  p.x.assign(x.begin(), x.end());
  const Vec ref = testing::kv_reference(c, p);
  for (std::size_t t = 0; t < T; ++t) {
    ASSERT_TRUE(m->prepare_decode().is_ok());
    Vec expected;
    for (std::size_t b = 0; b < c.batch; ++b) {
      std::copy_n(x.data() + (b * T + t) * D, D, m->decode_input() + b * D);
      expected.insert(expected.end(), ref.begin() + (b * T + t) * D,
                      ref.begin() + (b * T + t + 1) * D);
    }
    ASSERT_TRUE(m->decode().is_ok());
    EXPECT_TRUE(all_close(m->decode_output(), expected, 1e-5, 1e-5)) << "position " << t;
  }
}

TEST(KvDecode, AFullCacheIsRefusedAndResetStartsAgain) {
  auto m = make(1, 3, 6, 2, 1, "none", false);
  for (int t = 0; t < 3; ++t) ASSERT_TRUE(m->decode().is_ok());
  const Status full = m->prepare_decode();
  ASSERT_FALSE(full.is_ok());
  EXPECT_NE(full.message().find("the KV cache is full: this layer decodes at most 3 positions"),
            std::string::npos)
      << full.message();
  m->reset_cache();
  EXPECT_EQ(m->cache_bytes(), 0u);
  EXPECT_TRUE(m->decode().is_ok());
  EXPECT_EQ(m->cache_length(), 1u);
}

TEST(KvDecode, TheCacheIsCountedInTheBudget) {
  // GPT-2 width at T 1024: the layer without a cache fits 40 MB; K and V (2 x 1024 x 768 x 4 B =
  // 6 MB) do not fit beside it.
  AttentionOptions o;
  o.tokens = 1024, o.d_model = 768, o.heads = 12;
  Limits limits;
  Config config;
  ASSERT_TRUE(config_from_options(o, &limits, &config).is_ok());
  const std::uint64_t layer = needed_bytes(config, false).value();
  auto m = make(1, 1024, 768, 12, 0, "none", false, double(layer + 1024 * 1024));
  const Status s = m->prepare_decode();
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("the KV cache (6.0 MB for 1024 positions of 12 K/V heads) and the "
                             "layer need"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("more than the memory budget of"), std::string::npos);
  EXPECT_EQ(m->cache_bytes(), 0u);
  EXPECT_TRUE(m->run(Step::kForwardFused).is_ok());  // the layer works after the refusal
  // With 8 times fewer K/V heads the cache (768 KB) fits the same budget.
  auto grouped = make(1, 1024, 768, 12, 0, "none", false, double(layer + 1024 * 1024));
  auto g = make(1, 1024, 768, 12, 3, "none", false, double(layer + 1024 * 1024));
  EXPECT_TRUE(g->prepare_decode().is_ok());
  EXPECT_EQ(g->cache_bytes(), 2ull * 1024 * 3 * 64 * 4);
  // Intermediates kept beside a cache are checked with the cache counted.
  auto small = make(1, 64, 16, 2, 0, "none", false);
  ASSERT_TRUE(small->prepare_decode().is_ok());
}

}  // namespace
}  // namespace headwise
