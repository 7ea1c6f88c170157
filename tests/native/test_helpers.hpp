// What every native test shares: seeded random data, and element-wise comparison with a double
// reference at a stated tolerance (|a - ref| <= atol + rtol * |ref|), for GoogleTest.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "rng.hpp"

namespace headwise::testing {

// n values uniform in [-bound, bound), a pure function of (seed, n): rng.hpp's generator on a
// stream of its own, so test data never coincides with seeded weights or inputs.
constexpr std::uint32_t kTestDataStream = 11;
inline std::vector<float> random_vector(std::size_t n, std::uint64_t seed, float bound = 1.0f) {
  std::vector<float> v(n);
  fill_uniform(v.data(), n, seed, kTestDataStream, bound);
  return v;
}

// |actual - expected| <= atol + rtol * |expected| element-wise; infinities must match exactly.
inline ::testing::AssertionResult all_close(const float* actual,
                                            const std::vector<double>& expected, double atol = 1e-5,
                                            double rtol = 1e-5) {
  double worst = 0;
  std::size_t worst_at = 0, failures = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double a = actual[i], e = expected[i];
    if (std::isinf(e) || std::isinf(a)) {
      if (a != e) ++failures, worst_at = i, worst = std::numeric_limits<double>::infinity();
      continue;
    }
    const double diff = std::fabs(a - e);
    if (!(diff <= atol + rtol * std::fabs(e))) ++failures;
    if (!(diff <= worst)) worst = diff, worst_at = i;
  }
  if (failures == 0) return ::testing::AssertionSuccess() << "max |diff| " << worst;
  return ::testing::AssertionFailure()
         << failures << " of " << expected.size() << " elements differ; max |diff| " << worst
         << " at " << worst_at << " (got " << actual[worst_at] << ", expected "
         << expected[worst_at] << ", atol " << atol << ", rtol " << rtol << ")";
}

// Every probability finite and the row summing to 1 within 1e-6.
inline ::testing::AssertionResult finite_and_sums_to_one(const std::vector<float>& row) {
  double sum = 0;
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (!std::isfinite(row[i]))
      return ::testing::AssertionFailure() << "row[" << i << "] is " << row[i];
    sum += row[i];
  }
  if (std::fabs(sum - 1.0) > 1e-6)
    return ::testing::AssertionFailure() << "the row sums to " << sum;
  return ::testing::AssertionSuccess();
}

}  // namespace headwise::testing
