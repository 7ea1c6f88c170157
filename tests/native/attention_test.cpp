// Loop, fused and the double-precision reference agree on the lecture's configuration, on GPT-2
// small's width and on awkward sizes; the five steps run alone give the same as the whole pass.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <ostream>
#include <vector>

#include "model.hpp"
#include "reference_mha.hpp"
#include "rng.hpp"
#include "test_helpers.hpp"

namespace headwise {
namespace {

using testing::all_close;

struct Case {
  const char* name;
  Config config;
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

Config make(std::int64_t b, std::int64_t t, std::int64_t d, std::int64_t h, std::int64_t hd,
            bool causal, bool bias) {
  Config c;
  c.batch = b, c.tokens = t, c.d_model = d, c.heads = h, c.head_dim = hd;
  c.causal = causal, c.bias = bias;
  return c;
}

const Case kCases[] = {
    {"lecture_2x6x6_h2", make(2, 6, 6, 2, 0, true, false)},
    {"lecture_no_mask", make(2, 6, 6, 2, 0, false, false)},
    {"lecture_bias", make(2, 6, 6, 2, 0, true, true)},
    {"gpt2_width_T1", make(1, 1, 768, 12, 0, true, false)},
    {"gpt2_width_T17", make(1, 17, 768, 12, 0, true, true)},
    {"gpt2_width_T64", make(1, 64, 768, 12, 0, true, false)},
    {"gpt2_width_T40_no_mask", make(1, 40, 768, 12, 0, false, false)},
    {"T1_single_token", make(3, 1, 8, 2, 0, true, false)},
    {"H1_single_head", make(2, 9, 10, 1, 0, true, false)},
    {"head_dim1", make(2, 5, 7, 7, 0, true, false)},
    {"head_dim3_many_heads", make(2, 6, 6, 40, 3, true, false)},
    {"head_dim5", make(3, 11, 15, 3, 0, false, true)},
    {"head_dim17", make(2, 13, 34, 2, 0, true, false)},
    {"head_dim17_explicit_narrow", make(2, 19, 9, 3, 17, false, true)},
    {"batch4_odd_sizes", make(4, 33, 21, 7, 0, true, true)},
    {"T130_several_key_tiles", make(2, 130, 40, 4, 0, true, true)},
    {"T67_no_mask_packed_gemm", make(1, 67, 96, 3, 0, false, false)},
};

class AttentionTest : public ::testing::TestWithParam<Case> {};

std::unique_ptr<Model> make_model(const Config& config, std::uint64_t seed) {
  std::unique_ptr<Model> model;
  Status s = Model::create(config, Limits{}, seed, &model);
  EXPECT_TRUE(s.is_ok()) << s.message();
  fill_uniform(model->tensor(TensorId::kInput), model->tensor_size(TensorId::kInput), seed + 100,
               tensor_row(TensorId::kInput).stream, 1.0f);
  return model;
}

testing::RefResult reference_for(Model& m) {
  const layers::AttentionShape& d = m.shape();
  const bool b = m.shape().bias;
  testing::RefWeights w{m.tensor(TensorId::kWq),
                        m.tensor(TensorId::kWk),
                        m.tensor(TensorId::kWv),
                        m.tensor(TensorId::kWout),
                        b ? m.tensor(TensorId::kBq) : nullptr,
                        b ? m.tensor(TensorId::kBk) : nullptr,
                        b ? m.tensor(TensorId::kBv) : nullptr,
                        b ? m.tensor(TensorId::kBout) : nullptr};
  return testing::reference_mha({d.batch, d.tokens, d.d_model, d.heads, d.head_dim, d.causal}, w,
                                m.tensor(TensorId::kInput));
}

TEST_P(AttentionTest, FusedMatchesReferenceIncludingIntermediates) {
  auto model = make_model(GetParam().config, 7);
  ASSERT_TRUE(model->keep_intermediates(true).is_ok());
  ASSERT_TRUE(model->run(Step::kForwardFused).is_ok());
  const auto ref = reference_for(*model);
  EXPECT_TRUE(all_close(model->tensor(TensorId::kQHeads), ref.q_heads));
  EXPECT_TRUE(all_close(model->tensor(TensorId::kKHeads), ref.k_heads));
  EXPECT_TRUE(all_close(model->tensor(TensorId::kVHeads), ref.v_heads));
  EXPECT_TRUE(all_close(model->tensor(TensorId::kScores), ref.scores));
  EXPECT_TRUE(all_close(model->tensor(TensorId::kAttention), ref.attention));
  EXPECT_TRUE(all_close(model->tensor(TensorId::kContextHeads), ref.context_heads));
  EXPECT_TRUE(all_close(model->tensor(TensorId::kConcat), ref.concat));
  EXPECT_TRUE(all_close(model->tensor(TensorId::kOutput), ref.output));
}

TEST_P(AttentionTest, LoopMatchesReference) {
  auto model = make_model(GetParam().config, 11);
  ASSERT_TRUE(model->run(Step::kForwardLoop).is_ok());
  const auto ref = reference_for(*model);
  EXPECT_TRUE(all_close(model->tensor(TensorId::kConcat), ref.concat));
  EXPECT_TRUE(all_close(model->tensor(TensorId::kOutput), ref.output));
}

TEST_P(AttentionTest, LoopAndFusedAgree) {
  auto model = make_model(GetParam().config, 3);
  ASSERT_TRUE(model->run(Step::kForwardLoop).is_ok());
  const std::size_t n = model->tensor_size(TensorId::kOutput);
  const std::vector<float> loop(model->tensor(TensorId::kOutput),
                                model->tensor(TensorId::kOutput) + n);
  ASSERT_TRUE(model->run(Step::kForwardFused).is_ok());
  const std::vector<double> loop_d(loop.begin(), loop.end());
  EXPECT_TRUE(all_close(model->tensor(TensorId::kOutput), loop_d));
}

TEST_P(AttentionTest, StepsRunAloneEqualTheWholePass) {
  auto model = make_model(GetParam().config, 5);
  for (Step s : {Step::kProject, Step::kSplit, Step::kAttend, Step::kMerge, Step::kOutProject})
    ASSERT_TRUE(model->run(s).is_ok());
  const std::size_t n = model->tensor_size(TensorId::kOutput);
  const std::vector<float> stepwise(model->tensor(TensorId::kOutput),
                                    model->tensor(TensorId::kOutput) + n);
  ASSERT_TRUE(model->run(Step::kForwardFused).is_ok());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(stepwise[i], model->tensor(TensorId::kOutput)[i]);
}

INSTANTIATE_TEST_SUITE_P(Configs, AttentionTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Attention, RepeatedRunsAreBitwiseIdentical) {
  auto model = make_model(make(2, 9, 12, 3, 0, true, true), 9);
  ASSERT_TRUE(model->run(Step::kForwardFused).is_ok());
  const std::size_t n = model->tensor_size(TensorId::kOutput);
  const std::vector<float> first(model->tensor(TensorId::kOutput),
                                 model->tensor(TensorId::kOutput) + n);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(model->run(Step::kForwardFused).is_ok());
    ASSERT_EQ(0, std::memcmp(first.data(), model->tensor(TensorId::kOutput), n * sizeof(float)));
  }
}

TEST(Attention, CausalFirstTokenSeesOnlyItself) {
  auto model = make_model(make(1, 4, 6, 2, 0, true, false), 2);
  ASSERT_TRUE(model->keep_intermediates(true).is_ok());
  ASSERT_TRUE(model->run(Step::kForwardFused).is_ok());
  const float* attention = model->tensor(TensorId::kAttention);
  for (std::size_t h = 0; h < 2; ++h) {
    EXPECT_FLOAT_EQ(attention[h * 16 + 0], 1.0f);
    for (std::size_t j = 1; j < 4; ++j) EXPECT_EQ(attention[h * 16 + j], 0.0f);
  }
}

TEST(Attention, IntermediatesCanBeDroppedAgain) {
  auto model = make_model(make(1, 4, 6, 2, 0, true, false), 2);
  ASSERT_TRUE(model->keep_intermediates(true).is_ok());
  EXPECT_EQ(model->tensor_size(TensorId::kScores), 2u * 4 * 4);
  ASSERT_TRUE(model->keep_intermediates(false).is_ok());
  EXPECT_EQ(model->tensor_size(TensorId::kScores), 0u);
  EXPECT_TRUE(model->run(Step::kForwardFused).is_ok());
}

}  // namespace
}  // namespace headwise
