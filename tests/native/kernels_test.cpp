// The SIMD kernels at sizes equal to, below, above and multiples of the vector width (4 in wasm,
// up to 16 natively), against plain double loops.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "attention_head.hpp"
#include "gemm_f32.hpp"
#include "reference_mha.hpp"
#include "rng.hpp"
#include "test_helpers.hpp"

namespace headwise {
namespace {

using testing::all_close;
using testing::random_vector;

TEST(Gemm, MatchesDoubleLoopsAtEveryTailSize) {
  const std::size_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33};
  for (std::size_t m : {1, 3, 4, 5, 9}) {
    for (std::size_t n : sizes) {
      for (std::size_t k : {1, 3, 16, 17}) {
        const std::size_t lda = k + 2, ldb = n + 3, ldc = n + 1;  // strided views
        auto a = random_vector(m * lda, m * 1000 + n), b = random_vector(k * ldb, k + 77);
        auto bias = random_vector(n, 5);
        std::vector<float> c(m * ldc, -99.0f);
        gemm_f32(m, n, k, {a.data(), lda}, {b.data(), ldb}, bias.data(), c.data(), ldc);
        std::vector<double> expected(m * ldc, -99.0);
        for (std::size_t i = 0; i < m; ++i)
          for (std::size_t j = 0; j < n; ++j) {
            double sum = bias[j];
            for (std::size_t p = 0; p < k; ++p) sum += double(a[i * lda + p]) * b[p * ldb + j];
            expected[i * ldc + j] = sum;
          }
        ASSERT_TRUE(all_close(c.data(), expected)) << "m=" << m << " n=" << n << " k=" << k;
      }
    }
  }
}

TEST(Gemm, WithoutBiasOverwritesOutput) {
  std::vector<float> a{1, 2, 3, 4}, b{5, 6, 7, 8}, c(4, 1000.0f);
  gemm_f32(2, 2, 2, {a.data(), 2}, {b.data(), 2}, nullptr, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{19, 22, 43, 50}));
}

TEST(Softmax, MatchesDoubleReferenceAtEveryTailSize) {
  for (std::size_t n = 1; n <= 37; ++n) {
    auto row = random_vector(n, n);
    for (auto& x : row) x *= 8.0f;
    const auto expected = testing::reference_softmax(row);
    softmax_row_f32(row.data(), n);
    ASSERT_TRUE(all_close(row.data(), expected, 1e-6, 1e-5)) << "n=" << n;
  }
}

TEST(Softmax, StaysFiniteForHugeLogitsAndRowsSumToOne) {
  // A naive exp(1e4) overflows to infinity; the max-subtracted one must not.
  for (std::size_t n : {1, 3, 4, 5, 8, 17}) {
    std::vector<float> row(n);
    for (std::size_t i = 0; i < n; ++i) row[i] = (i % 2 ? -1e4f : 1e4f) - float(i);
    const auto expected = testing::reference_softmax(row);
    softmax_row_f32(row.data(), n);
    EXPECT_TRUE(all_close(row.data(), expected, 1e-6, 1e-5)) << "n=" << n;
    EXPECT_TRUE(testing::finite_and_sums_to_one(row)) << "n=" << n;
  }
}

TEST(AttendHead, ContextRowsCanBeWrittenIntoAWiderMatrix) {
  // The loop version writes each head's context into its own columns of the concatenation.
  const std::size_t T = 5, hd = 3, stride = 7;
  auto q = random_vector(T * hd, 1), k = random_vector(T * hd, 2), v = random_vector(T * hd, 3);
  std::vector<float> scratch(head_scratch_floats(T, hd)), wide(T * stride, -5.0f), narrow(T * hd);
  attend_head_f32(split_head(T, hd, true, q.data(), k.data(), v.data()), {scratch.data()},
                  {narrow.data(), hd, nullptr, nullptr});
  attend_head_f32(split_head(T, hd, true, q.data(), k.data(), v.data()), {scratch.data()},
                  {wide.data() + 2, stride, nullptr, nullptr});
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t e = 0; e < hd; ++e) EXPECT_EQ(wide[t * stride + 2 + e], narrow[t * hd + e]);
    EXPECT_EQ(wide[t * stride + 0], -5.0f);  // neighbours untouched
    EXPECT_EQ(wide[t * stride + 5], -5.0f);
  }
}

}  // namespace
}  // namespace headwise
