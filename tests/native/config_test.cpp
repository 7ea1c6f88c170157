// Every refusal names its problem; valid configurations pass, including the lecture's presets.
#include "config.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "model.hpp"

namespace headwise {
namespace {

Config config(std::int64_t b, std::int64_t t, std::int64_t d, std::int64_t h, std::int64_t hd = 0) {
  Config c;
  c.batch = b, c.tokens = t, c.d_model = d, c.heads = h, c.head_dim = hd;
  return c;
}

std::string refusal(const Config& c, Limits limits = {}) { return validate(c, limits).message(); }
// A negative size exists only as a number from outside C++ (the layer's sizes are unsigned).
std::string refusal_of_numbers(double b, double t, double d, double h, double hd = 0) {
  Config c;
  return config_from_numbers(b, t, d, h, hd, true, false, Limits{}, &c).message();
}

TEST(Config, AcceptsTheLecturePresets) {
  EXPECT_TRUE(validate(config(2, 6, 6, 2), {}).is_ok());
  EXPECT_TRUE(validate(config(1, 1024, 768, 12), {}).is_ok());          // GPT-2 small: 12 x 64
  EXPECT_TRUE(validate(config(2, 6, 6, 4000, 3), {}).is_ok());          // the heads sweep
  EXPECT_TRUE(validate_shape(config(1, 2048, 12288, 96), {}).is_ok());  // GPT-3: 96 x 128
  EXPECT_EQ(layers::resolved(config(1, 1, 12288, 96)).head_dim, 128u);
  EXPECT_EQ(layers::resolved(config(1, 1, 6, 4000, 3)).concat(), 12000u);
}

TEST(Config, RefusesTheDimensionRuleWithTheNumbers) {
  EXPECT_EQ(refusal(config(1, 4, 768, 10)),
            "width 768 is not divisible by 10 heads (heads x head_dim must equal width)");
  EXPECT_EQ(refusal(config(1, 4, 7, 2)),
            "width 7 is not divisible by 2 heads (heads x head_dim must equal width)");
}

TEST(Config, RefusesZeroNegativeAndAbsurdSizes) {
  EXPECT_EQ(refusal(config(0, 4, 6, 2)), "batch must be at least 1 (got 0)");
  EXPECT_EQ(refusal_of_numbers(1, -3, 6, 2), "tokens must be at least 1 (got -3)");
  EXPECT_EQ(refusal(config(1, 4, 0, 2)), "width must be at least 1 (got 0)");
  EXPECT_EQ(refusal(config(1, 4, 6, 0)), "heads must be at least 1 (got 0)");
  EXPECT_EQ(refusal_of_numbers(1, 4, 6, 2, -1), "head_dim must be at least 1 (got -1)");
  EXPECT_EQ(refusal(config(1, 1 << 30, 6, 2)), "tokens 1073741824 is too large (at most 65536)");
  EXPECT_EQ(refusal(config(1, 4, 6, std::numeric_limits<std::int64_t>::max())),
            "heads 9223372036854775807 is too large (at most 65536)");
}

TEST(Config, RefusesWhatExceedsTheMemoryBudget) {
  const std::string message = refusal(config(1, 2048, 12288, 96));  // GPT-3 width, 1 GB budget
  EXPECT_NE(message.find("needs"), std::string::npos) << message;
  EXPECT_NE(message.find("more than the memory budget of 1.0 GB"), std::string::npos) << message;
  // The attention kernel's scratch grows with the SIMD width (larger natively with AVX-512), so
  // the small budget is relative to it: the lecture's layer needs more than a 1-token layer.
  Limits tiny;
  tiny.memory_budget_bytes = 16 * 1024;
  EXPECT_TRUE(validate(config(1, 1, 2, 1), tiny).is_ok());
  tiny.memory_budget_bytes = 1024;
  EXPECT_FALSE(validate(config(2, 6, 6, 2), tiny).is_ok());
}

TEST(Config, IntermediatesAreCountedInTheBudget) {
  Limits limits;
  limits.memory_budget_bytes = 64ull << 20;
  const Config c = config(1, 2048, 64, 8);  // scores: 2 x 8 x 2048^2 floats = 256 MB
  EXPECT_TRUE(validate(c, limits, false).is_ok());
  const Status s = validate(c, limits, true);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("(B, H, T, T)"), std::string::npos) << s.message();

  std::unique_ptr<Model> model;
  ASSERT_TRUE(Model::create(c, limits, 1, &model).is_ok());
  EXPECT_FALSE(model->keep_intermediates(true).is_ok());
  EXPECT_EQ(model->tensor_size(TensorId::kScores), 0u);
  EXPECT_TRUE(model->run(Step::kForwardFused).is_ok());  // still usable after the refusal
}

TEST(Config, ModelCreationRefusesWithoutAllocating) {
  std::unique_ptr<Model> model;
  const Status s = Model::create(config(1, 4, 768, 10), {}, 1, &model);
  EXPECT_FALSE(s.is_ok());
  EXPECT_EQ(model, nullptr);
}

TEST(Config, FormatsBytes) {
  EXPECT_EQ(format_bytes(512), "512 bytes");
  EXPECT_EQ(format_bytes(1536), "1.5 KB");
  EXPECT_EQ(format_bytes(3.0 * (1 << 30)), "3.0 GB");
}

}  // namespace
}  // namespace headwise
