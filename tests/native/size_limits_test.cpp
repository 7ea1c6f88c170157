// Sizes cannot wrap: every size is computed in checked 64-bit arithmetic, a budget is capped at
// the address space (2 GB in the wasm module, whose size_t is 32 bits), and numbers from
// JavaScript are judged as the doubles they are. The configurations are the attacks of issue 11.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "checked_u64.hpp"
#include "config.hpp"
#include "model.hpp"
#include "simd_sizes.hpp"

namespace headwise {
namespace {

constexpr std::uint64_t kWasmAddressSpace = std::uint64_t(2) << 30;  // -sMAXIMUM_MEMORY=2GB

Config make(std::int64_t b, std::int64_t t, std::int64_t d, std::int64_t h, std::int64_t hd = 0) {
  Config c;
  c.batch = b, c.tokens = t, c.d_model = d, c.heads = h, c.head_dim = hd;
  return c;
}

Limits wasm_limits(std::uint64_t budget) {
  Limits limits;
  limits.memory_budget_bytes = budget;
  limits.address_space_bytes = kWasmAddressSpace;
  return limits;
}

std::string refusal(double b, double t, double d, double h, double hd = 0) {
  Config c;
  return config_from_numbers(b, t, d, h, hd, true, false, Limits{}, &c).message();
}

TEST(CheckedU64, OverflowIsRememberedThroughLaterArithmetic) {
  const CheckedU64 big = std::uint64_t(1) << 32;
  EXPECT_TRUE((big * ((std::uint64_t(1) << 32) - 1)).ok());  // 2^64 - 2^32 fits
  EXPECT_FALSE((big * big).ok());
  EXPECT_FALSE((big * big * 0).ok());  // no later product brings an overflow back
  EXPECT_FALSE((CheckedU64(UINT64_MAX) + 1).ok());
  EXPECT_EQ((CheckedU64(6) * 7 + 8).value(), 50u);
}

TEST(SizeLimits, HugeWidthAndHeadsAreRefusedAtTheModuleCeilingNotWrapped) {
  // { tokens: 1, dModel: 65536, heads: 65536, memoryBudget: 1e12 } was accepted with empty weights.
  const Config c = make(1, 1, 65536, 65536);
  const Status s = validate(c, wasm_limits(1000000000000ull));
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.message(),
            "this configuration needs 64.0 GB, more than the module can ever hold (2.0 GB)");
  std::unique_ptr<Model> model;
  EXPECT_FALSE(Model::create(c, wasm_limits(1000000000000ull), 1, &model).is_ok());
  EXPECT_EQ(model, nullptr);
}

TEST(SizeLimits, ScoresBeyondTheAddressSpaceAreRefusedWhenKept) {
  // 32769 tokens: 2^31 scores wrapped to 512 KB; 32768: the scores came back empty.
  for (std::int64_t tokens : {32768, 32769}) {
    const Config c = make(1, tokens, 2, 2, 1);
    const Limits limits = wasm_limits(std::uint64_t(1) << 36);
    ASSERT_TRUE(validate(c, limits).is_ok()) << tokens;  // without intermediates it is small
    const Status kept = validate(c, limits, /*with_intermediates=*/true);
    ASSERT_FALSE(kept.is_ok()) << tokens;
    EXPECT_NE(kept.message().find(
                  "(with the (B, H, T, T) scores kept), more than the module can ever hold"),
              std::string::npos)
        << kept.message();
    std::unique_ptr<Model> model;
    ASSERT_TRUE(Model::create(c, limits, 1, &model).is_ok());
    EXPECT_FALSE(model->keep_intermediates(true).is_ok());
    EXPECT_FALSE(model->keeps_intermediates());
    EXPECT_EQ(model->tensor_size(TensorId::kScores), 0u);
  }
}

TEST(SizeLimits, SizesBeyondSixtyFourBitsAreRefusedInWords) {
  Limits open;  // limits raised so far that only the arithmetic can refuse
  open.max_batch = open.max_tokens = open.max_d_model = open.max_heads = open.max_head_dim =
      std::numeric_limits<std::int64_t>::max();
  open.memory_budget_bytes = UINT64_MAX;
  const Status s = validate(make(std::int64_t(1) << 40, 1 << 20, 1 << 20, 1 << 20), open);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.message(), "this configuration is too large: its size does not fit in 64 bits");
  EXPECT_FALSE(
      needed_bytes(make(1, std::int64_t(1) << 40, 2, 2), false).ok());  // the scratch formula
  std::uint64_t floats = 0;
  EXPECT_FALSE(head_scratch_floats_u64(std::uint64_t(1) << 32, 64, &floats));
  EXPECT_TRUE(head_scratch_floats_u64(4096, 64, &floats));
  EXPECT_EQ(floats, head_scratch_floats(4096, 64));
}

TEST(SizeLimits, NumbersFromJavaScriptAreJudgedAsTheyCame) {
  EXPECT_EQ(refusal(1, 4, 1e308, 2), "width 1e+308 is too large (at most 65536)");
  EXPECT_EQ(refusal(1, 4, 8, 9.3e18), "heads 9300000000000000000 is too large (at most 65536)");
  EXPECT_EQ(refusal(1, 4, 8, std::ldexp(1.0, 64)),
            "heads 18446744073709552000 is too large (at most 65536)");
  EXPECT_EQ(refusal(1, 65537, 8, 2), "tokens 65537 is too large (at most 65536)");
  EXPECT_EQ(refusal(1, 4, 8, 2, 1e20),
            "head_dim 100000000000000000000 is too large (at most 65536)");
  EXPECT_EQ(refusal(1, 4, 8, -1e308), "heads must be at least 1 (got -1e+308)");
  EXPECT_EQ(refusal(0, 4, 8, 2), "batch must be at least 1 (got 0)");
  EXPECT_EQ(refusal(1, 4.5, 8, 2), "tokens must be a whole number (got 4.5)");
  EXPECT_EQ(refusal(1, std::nan(""), 8, 2), "tokens must be a whole number (got NaN)");
  EXPECT_EQ(refusal(1, 4, std::numeric_limits<double>::infinity(), 2),
            "width Infinity is too large (at most 65536)");
  Config c;
  ASSERT_TRUE(config_from_numbers(2, 6, 6, 2, 0, false, true, Limits{}, &c).is_ok());
  EXPECT_EQ(c.batch, 2u);
  EXPECT_EQ(c.head_dim, 0u);
  EXPECT_FALSE(c.causal);
  EXPECT_TRUE(c.bias);
}

TEST(SizeLimits, BudgetsBeyondSixtyFourBitsAreCappedNotZeroed) {
  const std::uint64_t fallback = 1 << 30;
  EXPECT_EQ(budget_from_number(std::ldexp(1.0, 64), fallback), UINT64_MAX);  // was 0 bytes
  EXPECT_EQ(budget_from_number(1e300, fallback), UINT64_MAX);
  EXPECT_EQ(budget_from_number(std::numeric_limits<double>::infinity(), fallback), UINT64_MAX);
  EXPECT_EQ(budget_from_number(1e12, fallback), 1000000000000u);
  EXPECT_EQ(budget_from_number(0, fallback), fallback);
  EXPECT_EQ(budget_from_number(std::nan(""), fallback), fallback);
  // The capped budget still admits what the module can hold.
  EXPECT_TRUE(validate(make(2, 6, 6, 2), wasm_limits(UINT64_MAX)).is_ok());
  EXPECT_EQ(effective_budget(wasm_limits(UINT64_MAX)), kWasmAddressSpace);
}

TEST(SizeLimits, RefusalsOneByteOverTheBudgetPrintExactBytes) {
  const Config c = make(2, 6, 6, 2);
  const std::uint64_t needed = needed_bytes(c, false).value();
  Limits limits;
  limits.memory_budget_bytes = needed - 1;
  EXPECT_EQ(validate(c, limits).message(), "this configuration needs " + std::to_string(needed) +
                                               " bytes, more than the memory budget of " +
                                               std::to_string(needed - 1) + " bytes");
  limits.memory_budget_bytes = needed;
  EXPECT_TRUE(validate(c, limits).is_ok());
}

TEST(SizeLimits, FormatsNumbersAsJavaScriptWouldPrintThem) {
  EXPECT_EQ(format_number(65536), "65536");
  EXPECT_EQ(format_number(1.5), "1.5");
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(9007199254740993.0), "9007199254740992");
  EXPECT_EQ(format_number(-2.5e-8), "-2.5e-8");
  EXPECT_EQ(format_number(0.000001), "0.000001");
  EXPECT_EQ(format_number(123.456), "123.456");
  EXPECT_EQ(format_number(1e21), "1e+21");
  EXPECT_EQ(format_number(1.2345e22), "1.2345e+22");
}

}  // namespace
}  // namespace headwise
