// The GEMM paths at sizes equal to, below, above and multiples of the register tile (4 rows x
// 2 vectors: 8 columns in wasm, 16 with AVX2) and of the cache blocks (k 256, n 512, m 64).
#include <gtest/gtest.h>

#include <vector>

#include "gemm_f32.hpp"
#include "rng.hpp"
#include "test_helpers.hpp"

namespace headwise {
namespace {

using testing::all_close;
using testing::random_vector;
using GemmFn = void (*)(std::size_t, std::size_t, std::size_t, MatrixView, MatrixView, const float*,
                        float*, std::size_t);

// Strided A, B and C; C starts filled with a sentinel that must be overwritten (or kept past n).
void expect_matches_double(GemmFn gemm, std::size_t m, std::size_t n, std::size_t k, bool bias) {
  const std::size_t lda = k + 3, ldb = n + 5, ldc = n + 2;
  auto a = random_vector(m * lda, m * 31 + k), b = random_vector(k * ldb, n * 17 + k);
  auto bias_v = random_vector(n, n);
  std::vector<float> c(m * ldc, -99.0f);
  gemm(m, n, k, {a.data(), lda}, {b.data(), ldb}, bias ? bias_v.data() : nullptr, c.data(), ldc);
  std::vector<double> expected(m * ldc, -99.0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double sum = bias ? bias_v[j] : 0.0;
      for (std::size_t p = 0; p < k; ++p) sum += double(a[i * lda + p]) * b[p * ldb + j];
      expected[i * ldc + j] = sum;
    }
  // Sums of k products of magnitude <= 1: float rounding grows with k.
  ASSERT_TRUE(all_close(c.data(), expected, 1e-5 + 2e-7 * double(k), 1e-5))
      << "m=" << m << " n=" << n << " k=" << k << " bias=" << bias;
}

TEST(GemmPacked, MatchesDoubleLoopsAroundTheRegisterTile) {
  for (std::size_t m : {1, 3, 4, 5, 8, 9})
    for (std::size_t n : {1, 3, 4, 7, 8, 9, 15, 16, 17, 33})
      for (std::size_t k : {1, 2, 5, 16})
        expect_matches_double(gemm_f32_packed, m, n, k, (m + n) % 2 == 0);
}

TEST(GemmPacked, MatchesDoubleLoopsAroundTheCacheBlocks) {
  const std::size_t shapes[][3] = {
      {63, 40, 255},  {64, 40, 256}, {65, 40, 257}, {129, 24, 513},  // k blocks, m blocks
      {5, 511, 20},   {5, 512, 20},  {6, 513, 20},  {7, 1030, 9},    // n blocks
      {130, 520, 300}};                                              // all of them at once
  for (const auto& s : shapes) {
    expect_matches_double(gemm_f32_packed, s[0], s[1], s[2], true);
    expect_matches_double(gemm_f32_packed, s[0], s[1], s[2], false);
  }
}

TEST(GemmDirect, MatchesDoubleLoopsAroundTheRegisterTile) {
  for (std::size_t m : {1, 3, 4, 5, 9})
    for (std::size_t n : {1, 4, 7, 8, 9, 16, 17})
      for (std::size_t k : {1, 3, 17}) expect_matches_double(gemm_f32_direct, m, n, k, true);
}

// Fewer columns than the register tile (n < 8 in wasm): dot products along k, B transposed 256
// rows at a time, 4 rows of A per tile, vector tails of k and row tails of m.
TEST(GemmDots, MatchesDoubleLoopsForNarrowOutputs) {
  for (std::size_t m : {1, 3, 4, 5, 12})
    for (std::size_t n : {1, 2, 3, 6, 7})
      for (std::size_t k : {1, 5, 32, 33, 255, 256, 257, 1000})
        expect_matches_double(gemm_f32_dots, m, n, k, (m + k) % 2 == 0);
}

TEST(Gemm, ChoosesAPathThatMatchesAtProjectionShapes) {
  expect_matches_double(gemm_f32, 70, 96, 64, true);    // packed
  expect_matches_double(gemm_f32, 6, 3, 6, false);      // direct (a toy head)
  expect_matches_double(gemm_f32, 33, 64, 100, false);  // packed, one head's columns
  expect_matches_double(gemm_f32, 12, 6, 12000, true);  // dots: 4000 heads of 3 onto width 6
}

TEST(GemmPacked, RepeatedRunsAreBitwiseIdentical) {
  const std::size_t m = 70, n = 530, k = 300;
  auto a = random_vector(m * k, 1), b = random_vector(k * n, 2);
  std::vector<float> first(m * n), second(m * n, 5.0f);
  gemm_f32_packed(m, n, k, {a.data(), k}, {b.data(), n}, nullptr, first.data(), n);
  gemm_f32_packed(m, n, k, {a.data(), k}, {b.data(), n}, nullptr, second.data(), n);
  EXPECT_EQ(first, second);
}

}  // namespace
}  // namespace headwise
