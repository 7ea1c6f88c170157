// exp_f32 (the SIMD exp of the softmax) and exp2_nonpositive_f32 (the attention kernels' 2^x)
// against double std::exp / std::exp2 over their whole ranges.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "exp_f32.hpp"

namespace headwise {
namespace {

using Batch = xsimd::batch<float>;

template <Batch (*Exp)(Batch) = exp_f32>
std::vector<float> exp_of(const std::vector<float>& x) {
  std::vector<float> out(x.size());
  for (std::size_t i = 0; i + Batch::size <= x.size(); i += Batch::size)
    Exp(Batch::load_unaligned(x.data() + i)).store_unaligned(out.data() + i);
  return out;
}

// The largest relative error of Exp against `reference` (in double) over x, in whole vectors.
template <Batch (*Exp)(Batch)>
double worst_relative_error(std::vector<float> x, double (*reference)(double)) {
  x.resize(x.size() / Batch::size * Batch::size);
  const auto e = exp_of<Exp>(x);
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double ref = reference(double(x[i]));
    worst = std::max(worst, std::fabs(e[i] - ref) / ref);
  }
  return worst;
}

TEST(ExpF32, RelativeErrorBelowOneTenMillionthOverTheNormalRange) {
  std::vector<float> x;
  for (float v = -87.3f; v < 88.3f; v += 0.00731f) x.push_back(v);
  EXPECT_LT(worst_relative_error<exp_f32>(x, [](double v) { return std::exp(v); }), 2e-7);
}

TEST(ExpF32, ExactAtZeroAndZeroBelowTheNormalRange) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x(Batch::size * 2, 0.0f);
  x[Batch::size] = -inf, x[Batch::size + 1] = -1e4f, x[Batch::size + 2] = -88.0f;
  const auto e = exp_of(x);
  for (std::size_t i = 0; i < Batch::size; ++i) EXPECT_EQ(e[i], 1.0f);
  EXPECT_EQ(e[Batch::size], 0.0f);
  EXPECT_EQ(e[Batch::size + 1], 0.0f);
  EXPECT_EQ(e[Batch::size + 2], 0.0f);
}

TEST(ExpF32, LargeArgumentsStayFinite) {
  std::vector<float> x(Batch::size, 88.3f);
  for (float v : exp_of(x)) {
    EXPECT_TRUE(std::isfinite(v));
    EXPECT_NEAR(v / std::exp(double(88.3f)), 1.0, 2e-7);
  }
}

TEST(Exp2NonpositiveF32, RelativeErrorBelowTwoAndAHalfTenMillionthsDownTo2ToTheMinus125) {
  std::vector<float> x;
  for (float v = -125.0f; v <= 0.0f; v += 0.000913f) x.push_back(v);
  for (float v = -1.0f; v <= 0.0f; v += 1.0f / 4096) x.push_back(v);  // dense around -0.5
  EXPECT_LT(worst_relative_error<exp2_nonpositive_f32>(x, [](double v) { return std::exp2(v); }),
            2.5e-7);
}

TEST(Exp2NonpositiveF32, BelowTheRangeATinyNormalNumberNotZeroOrDenormal) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x(Batch::size, -inf);
  x[1 % Batch::size] = -1e4f, x[2 % Batch::size] = -126.0f, x[3 % Batch::size] = -125.0f;
  for (float v : exp_of<exp2_nonpositive_f32>(x)) {
    EXPECT_GE(v, std::numeric_limits<float>::min());  // smallest normal float
    EXPECT_LE(v, std::exp2(-124.0f));
  }
}

}  // namespace
}  // namespace headwise
