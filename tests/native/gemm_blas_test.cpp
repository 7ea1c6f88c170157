// The GEMM in sgemm's shape, C = alpha op(A) op(B) + beta C (+ bias), against a double loop: every
// transpose pair, every path pinned, every size from 1 to 17 (tails of the 4-row tile, of 1 and 2
// vectors) and sizes across the panel width (8 columns in wasm, 16 with AVX2, 32 with AVX-512)
// and the cache blocks (k 256, n 512, m 64). Tolerance: |c - ref| <= atol + rtol |ref| with
// atol = 1e-5 + 2e-7 k and rtol = 1e-5 (sums of k products of entries in [-1, 1]).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "gemm_f32.hpp"
#include "rng.hpp"

namespace headwise {
namespace {

constexpr float kGuard = -77.0f;  // around C's logical area; must survive every call bit for bit
constexpr GemmPath kPaths[] = {GemmPath::kPacked, GemmPath::kDirect, GemmPath::kDots,
                               GemmPath::kChosen};
constexpr Trans kNoT = Trans::kNo, kT = Trans::kYes;
constexpr Trans kTransPairs[][2] = {{kNoT, kNoT}, {kT, kNoT}, {kNoT, kT}, {kT, kT}};
constexpr float kAlphaBeta[][2] = {{1.0f, 0.0f},  {1.0f, 1.0f},  {1.0f, 0.3f},
                                   {-0.5f, 0.0f}, {-0.5f, 1.0f}, {-0.5f, 0.3f}};

struct Case {
  Trans ta, tb;
  std::size_t m, n, k;
  float alpha, beta;
  bool bias;
};

std::string describe(const Case& s, GemmPath path) {
  std::ostringstream out;
  out << "path=" << int(path) << " ta=" << int(s.ta == kT) << " tb=" << int(s.tb == kT)
      << " m=" << s.m << " n=" << s.n << " k=" << s.k << " alpha=" << s.alpha << " beta=" << s.beta
      << " bias=" << s.bias;
  return out.str();
}

std::vector<float> random_vector(std::size_t n, std::uint64_t seed) {
  std::vector<float> v(n);
  fill_uniform(v.data(), n, seed, 11, 1.0f);
  return v;
}

// Runs one product with padded leading dimensions and a guard row above and below C; returns a
// failure message, empty when every entry is within tolerance and every guard intact.
std::string check(GemmPath path, const Case& s) {
  const bool ta = s.ta == kT, tb = s.tb == kT;
  const std::size_t a_rows = ta ? s.k : s.m, lda = (ta ? s.m : s.k) + 3;
  const std::size_t b_rows = tb ? s.n : s.k, ldb = (tb ? s.k : s.n) + 5;
  const std::size_t ldc = s.n + 2;
  const std::uint64_t seed = s.m * 1000003 + s.n * 1009 + s.k;
  const auto a = random_vector(a_rows * lda, seed), b = random_vector(b_rows * ldb, seed + 1);
  const auto bias = random_vector(s.n, seed + 2), c0 = random_vector(s.m * ldc, seed + 3);
  std::vector<float> buffer((s.m + 2) * ldc, kGuard);
  float* c = buffer.data() + ldc;
  for (std::size_t i = 0; i < s.m; ++i)
    for (std::size_t j = 0; j < s.n; ++j)
      c[i * ldc + j] = s.beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : c0[i * ldc + j];

  gemm_f32(GemmArgs{s.ta, s.tb, s.m, s.n, s.k, s.alpha, a.data(), lda, b.data(), ldb, s.beta, c,
                    ldc, s.bias ? bias.data() : nullptr},
           path);

  const double atol = 1e-5 + 2e-7 * double(s.k), rtol = 1e-5;
  for (std::size_t i = 0; i < s.m + 2; ++i)
    for (std::size_t j = 0; j < ldc; ++j) {
      const float got = buffer[i * ldc + j];
      if (i == 0 || i == s.m + 1 || j >= s.n) {
        if (got != kGuard)
          return "guard overwritten at row " + std::to_string(i) + " col " + std::to_string(j);
        continue;
      }
      double sum = 0;
      for (std::size_t p = 0; p < s.k; ++p) {
        const double av = ta ? a[p * lda + (i - 1)] : a[(i - 1) * lda + p];
        const double bv = tb ? b[j * ldb + p] : b[p * ldb + j];
        sum += av * bv;
      }
      double ref = double(s.alpha) * sum + (s.bias ? double(bias[j]) : 0.0);
      if (s.beta != 0.0f) ref += double(s.beta) * c0[(i - 1) * ldc + j];
      if (!(std::fabs(got - ref) <= atol + rtol * std::fabs(ref))) {
        std::ostringstream out;
        out << "C[" << i - 1 << "][" << j << "] = " << got << ", expected " << ref;
        return out.str();
      }
    }
  return "";
}

void expect_all_paths(const Case& s) {
  for (GemmPath path : kPaths) {
    const std::string failure = check(path, s);
    ASSERT_TRUE(failure.empty()) << describe(s, path) << ": " << failure;
  }
}

// Every (m, n, k) in 1..17 (n also 31..33), every transpose pair, every path; the six
// (alpha, beta) pairs and bias on/off take turns so that each meets every tail.
TEST(GemmBlas, MatchesDoubleLoopsAtEveryTailSize) {
  std::size_t turn = 0;
  for (const auto& t : kTransPairs)
    for (std::size_t m = 1; m <= 17; ++m)
      for (std::size_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 31, 32, 33})
        for (std::size_t k = 1; k <= 17; ++k, ++turn) {
          const auto& ab = kAlphaBeta[turn % 6];
          expect_all_paths({t[0], t[1], m, n, k, ab[0], ab[1], turn % 7 < 3});
          if (HasFatalFailure()) return;
        }
}

TEST(GemmBlas, MatchesDoubleLoopsForEveryAlphaBetaAndTranspose) {
  for (const auto& t : kTransPairs)
    for (const auto& ab : kAlphaBeta)
      for (bool bias : {false, true})
        for (const auto& s : {std::array<std::size_t, 3>{5, 9, 3}, {13, 17, 40}, {33, 40, 64}}) {
          expect_all_paths({t[0], t[1], s[0], s[1], s[2], ab[0], ab[1], bias});
          if (HasFatalFailure()) return;
        }
}

// The induction training step's products (d_model 64, heads of 16, T = 64; m, n, k), where the
// chosen path for n <= 2 panels is the direct one: every transpose, accumulating or not.
TEST(GemmBlas, MatchesDoubleLoopsAtTheTrainingStepShapes) {
  const std::size_t shapes[][3] = {{64, 16, 64},  {64, 64, 16}, {256, 64, 64}, {64, 64, 256},
                                   {256, 16, 64}, {63, 15, 17}, {65, 17, 66}};
  for (const auto& t : kTransPairs)
    for (const auto& s : shapes)
      for (float beta : {0.0f, 1.0f}) {
        expect_all_paths({t[0], t[1], s[0], s[1], s[2], 1.0f, beta, false});
        if (HasFatalFailure()) return;
      }
}

TEST(GemmBlas, MatchesDoubleLoopsAcrossTheCacheBlocks) {
  const std::size_t shapes[][3] = {
      {63, 40, 255}, {64, 40, 256}, {65, 40, 257}, {129, 24, 513},  // k blocks, m blocks
      {5, 511, 20},  {5, 512, 20},  {6, 513, 20},  {7, 1030, 9},    // n blocks
      {9, 7, 127},   {9, 7, 128},   {9, 7, 129},   {6, 3, 1000},    // dot-product depths
      {70, 130, 300}};                                              // all of them at once
  std::size_t turn = 0;
  for (const auto& t : kTransPairs)
    for (const auto& s : shapes) {
      const auto& ab = kAlphaBeta[turn++ % 6];
      expect_all_paths({t[0], t[1], s[0], s[1], s[2], ab[0], ab[1], turn % 2 == 0});
      if (HasFatalFailure()) return;
    }
}

// alpha == 0 or k == 0: C = beta C + bias, and A and B are not read (NaN there stays out of C).
TEST(GemmBlas, ZeroAlphaOrDepthOnlyScalesC) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> a(12, nan), b(12, nan), bias{1.0f, 2.0f, 3.0f};
  for (GemmPath path : kPaths) {
    std::vector<float> c{1.0f, 1.0f, 1.0f, 2.0f, 2.0f, 2.0f};
    gemm_f32(
        GemmArgs{kT, kNoT, 2, 3, 4, 0.0f, a.data(), 2, b.data(), 3, 0.5f, c.data(), 3, bias.data()},
        path);
    EXPECT_EQ(c, (std::vector<float>{1.5f, 2.5f, 3.5f, 2.0f, 3.0f, 4.0f}));
    gemm_f32(
        GemmArgs{kNoT, kT, 2, 3, 0, 1.0f, a.data(), 1, b.data(), 1, 0.0f, c.data(), 3, nullptr},
        path);
    EXPECT_EQ(c, (std::vector<float>(6, 0.0f)));
  }
}

// The backward pass's two products at a projection's shape, accumulated over two batches as a
// trainer would: dW (in x out) += X^T dY, and dX (T x in) = dY W^T, through the chosen path.
TEST(GemmBlas, BackwardProductsAccumulate) {
  const std::size_t tokens = 70, in = 96, out = 40;
  const auto x1 = random_vector(tokens * in, 1), x2 = random_vector(tokens * in, 2);
  const auto dy1 = random_vector(tokens * out, 3), dy2 = random_vector(tokens * out, 4);
  const auto w = random_vector(in * out, 5);
  std::vector<float> dw(in * out, std::numeric_limits<float>::quiet_NaN()), dx(tokens * in);
  gemm_f32(kT, kNoT, in, out, tokens, 1.0f, x1.data(), in, dy1.data(), out, 0.0f, dw.data(), out);
  gemm_f32(kT, kNoT, in, out, tokens, 1.0f, x2.data(), in, dy2.data(), out, 1.0f, dw.data(), out);
  gemm_f32(kNoT, kT, tokens, in, out, 1.0f, dy2.data(), out, w.data(), out, 0.0f, dx.data(), in);
  double worst_dw = 0, worst_dx = 0;
  for (std::size_t i = 0; i < in; ++i)
    for (std::size_t j = 0; j < out; ++j) {
      double sum = 0;
      for (std::size_t t = 0; t < tokens; ++t)
        sum +=
            double(x1[t * in + i]) * dy1[t * out + j] + double(x2[t * in + i]) * dy2[t * out + j];
      worst_dw = std::max(worst_dw, std::fabs(dw[i * out + j] - sum) - 1e-5 * std::fabs(sum));
    }
  for (std::size_t t = 0; t < tokens; ++t)
    for (std::size_t i = 0; i < in; ++i) {
      double sum = 0;
      for (std::size_t j = 0; j < out; ++j) sum += double(dy2[t * out + j]) * w[i * out + j];
      worst_dx = std::max(worst_dx, std::fabs(dx[t * in + i] - sum) - 1e-5 * std::fabs(sum));
    }
  EXPECT_LE(worst_dw, 1e-5 + 2e-7 * 2 * tokens);
  EXPECT_LE(worst_dx, 1e-5 + 2e-7 * out);
}

}  // namespace
}  // namespace headwise
