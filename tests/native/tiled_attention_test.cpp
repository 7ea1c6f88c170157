// The attention kernels against a double reference of one head: the tiled online-softmax kernel
// (blocks of 32 and 4 query rows x 128 keys per tile, keys in panels of 2 SIMD vectors) at sizes
// around every tile and panel size, the short kernels (one head, and many heads across SIMD
// lanes), causal on and off; plus the softmax numerics (fully masked rows, huge logits of both
// signs, ties, bitwise repeatability).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "attention_head.hpp"
#include "attention_lanes.hpp"
#include "reference_mha.hpp"
#include "rng.hpp"
#include "test_helpers.hpp"

namespace headwise {
namespace {

using testing::all_close;
using testing::random_vector;

// softmax(q k^T / sqrt(hd) + mask) v for one head, in double.
std::vector<double> reference_head(std::size_t T, std::size_t hd, bool causal, const float* q,
                                   const float* k, const float* v) {
  std::vector<double> out(T * hd, 0.0), w(T);
  for (std::size_t i = 0; i < T; ++i) {
    const std::size_t visible = causal ? i + 1 : T;
    double max = -1e300, sum = 0;
    for (std::size_t j = 0; j < visible; ++j) {
      double s = 0;
      for (std::size_t d = 0; d < hd; ++d) s += double(q[i * hd + d]) * k[j * hd + d];
      w[j] = s / std::sqrt(double(hd));
      max = std::max(max, w[j]);
    }
    for (std::size_t j = 0; j < visible; ++j) sum += w[j] = std::exp(w[j] - max);
    for (std::size_t j = 0; j < visible; ++j)
      for (std::size_t d = 0; d < hd; ++d) out[i * hd + d] += w[j] / sum * v[j * hd + d];
  }
  return out;
}

void expect_tiled_matches(std::size_t T, std::size_t hd, bool causal, float bound = 1.0f) {
  auto q = random_vector(T * hd, T * 3 + hd, bound), k = random_vector(T * hd, T * 5 + hd, bound);
  auto v = random_vector(T * hd, T * 7 + hd);
  std::vector<float> scratch(head_scratch_floats(T, hd), std::nanf("")), ctx(T * hd, -7.0f);
  attend_head_tiled_f32(T, hd, causal, q.data(), k.data(), v.data(), {scratch.data()}, ctx.data(),
                        hd);
  ASSERT_TRUE(all_close(ctx.data(), reference_head(T, hd, causal, q.data(), k.data(), v.data())))
      << "T=" << T << " hd=" << hd << " causal=" << causal;
}

TEST(TiledAttention, MatchesDoubleReferenceAroundTileSizes) {
  for (bool causal : {true, false})
    for (std::size_t T : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 127, 128, 129, 200})
      for (std::size_t hd : {1, 3, 4, 5, 8, 9, 16, 17, 33, 64}) expect_tiled_matches(T, hd, causal);
}

// The short-sequence kernel (tokens <= 16, head_dim <= 8, no packing) on every size it takes,
// including sharp scores; scores in the thousands stay finite (a naive exp would overflow).
TEST(ShortAttention, MatchesDoubleReferenceOnEverySizeItTakes) {
  for (float bound : {1.0f, 8.0f})
    for (bool causal : {true, false})
      for (std::size_t T = 1; T <= 16; ++T)
        for (std::size_t hd = 1; hd <= 8; ++hd) {
          auto q = random_vector(T * hd, T * 3 + hd, bound),
               k = random_vector(T * hd, T * 5 + hd, bound);
          auto v = random_vector(T * hd, T * 7 + hd);
          const std::size_t stride = hd + 2;  // rows of a wider matrix, as the loop version writes
          std::vector<float> ctx(T * stride, -7.0f);
          attend_head_short_f32(T, hd, causal, q.data(), k.data(), v.data(), ctx.data(), stride);
          std::vector<float> packed(T * hd);
          for (std::size_t t = 0; t < T; ++t) {
            for (std::size_t d = 0; d < hd; ++d) packed[t * hd + d] = ctx[t * stride + d];
            ASSERT_EQ(ctx[t * stride + hd], -7.0f);  // the neighbours' columns are untouched
          }
          ASSERT_TRUE(
              all_close(packed.data(), reference_head(T, hd, causal, q.data(), k.data(), v.data())))
              << "T=" << T << " hd=" << hd << " causal=" << causal << " bound=" << bound;
        }
}

// Many short heads side by side, one per SIMD lane (4 in wasm, 8 with AVX2): pair counts below,
// at and past whole groups of lanes (the rest run one by one), every T and head_dim it takes.
// Nothing past the last pair's context is written.
TEST(ShortHeadsAcrossLanes, EveryPairMatchesTheDoubleReference) {
  for (std::size_t pairs : {1, 3, 4, 5, 8, 9, 17, 33})
    for (bool causal : {true, false})
      for (std::size_t T : {1, 2, 5, 6, 16})
        for (std::size_t hd = 1; hd <= 8; ++hd) {
          const std::size_t n = T * hd, seed = pairs * 1000 + T * 10 + hd;
          const float bound = hd % 2 ? 1.0f : 8.0f;
          auto q = random_vector(pairs * n, seed, bound),
               k = random_vector(pairs * n, seed + 1, bound);
          auto v = random_vector(pairs * n, seed + 2);
          std::vector<float> ctx(pairs * n + 1, -7.0f);
          attend_short_heads_f32(pairs, T, hd, causal, q.data(), k.data(), v.data(), ctx.data());
          ASSERT_EQ(ctx[pairs * n], -7.0f);
          for (std::size_t p = 0; p < pairs; ++p) {
            const std::size_t at = p * n;
            ASSERT_TRUE(all_close(ctx.data() + at, reference_head(T, hd, causal, q.data() + at,
                                                                  k.data() + at, v.data() + at)))
                << "pair " << p << " of " << pairs << " T=" << T << " hd=" << hd
                << " causal=" << causal;
          }
        }
}

TEST(ShortAttention, HugeScoresStayFinite) {
  const std::size_t T = 16, hd = 8;
  auto q = random_vector(T * hd, 1, 1000.0f), k = random_vector(T * hd, 2, 1000.0f);
  auto v = random_vector(T * hd, 3);
  std::vector<float> ctx(T * hd);
  attend_head_short_f32(T, hd, true, q.data(), k.data(), v.data(), ctx.data(), hd);
  for (float c : ctx) {
    ASSERT_TRUE(std::isfinite(c));
    ASSERT_LE(std::fabs(c), 1.0f);  // a convex combination of values in [-1, 1)
  }
}

TEST(TiledAttention, LongSequenceWithSharpScoresRescalesCorrectly) {
  // Large scores make the running max jump from tile to tile: every rescale is exercised.
  expect_tiled_matches(300, 64, true, 4.0f);
  expect_tiled_matches(300, 64, false, 4.0f);
}

TEST(TiledAttention, AgreesWithTheRowPathThatKeepsScores) {
  const std::size_t T = 150, hd = 24;
  auto q = random_vector(T * hd, 1), k = random_vector(T * hd, 2), v = random_vector(T * hd, 3);
  std::vector<float> scratch(head_scratch_floats(T, hd)), tiled(T * hd), rows(T * hd);
  std::vector<float> scores(T * T), attention(T * T);
  attend_head_tiled_f32(T, hd, true, q.data(), k.data(), v.data(), {scratch.data()}, tiled.data(),
                        hd);
  attend_head_f32(split_head(T, hd, true, q.data(), k.data(), v.data()), {scratch.data()},
                  {rows.data(), hd, scores.data(), attention.data()});
  const std::vector<double> rows_d(rows.begin(), rows.end());
  EXPECT_TRUE(all_close(tiled.data(), rows_d, 1e-6, 1e-5));
  EXPECT_EQ(scores[1], -std::numeric_limits<float>::infinity());  // above the diagonal
  EXPECT_EQ(attention[1], 0.0f);
}

TEST(TiledAttention, RepeatedRunsAreBitwiseIdentical) {
  const std::size_t T = 130, hd = 20;
  auto q = random_vector(T * hd, 4), k = random_vector(T * hd, 5), v = random_vector(T * hd, 6);
  std::vector<float> scratch(head_scratch_floats(T, hd)), first(T * hd), second(T * hd);
  attend_head_tiled_f32(T, hd, true, q.data(), k.data(), v.data(), {scratch.data()}, first.data(),
                        hd);
  attend_head_tiled_f32(T, hd, true, q.data(), k.data(), v.data(), {scratch.data()}, second.data(),
                        hd);
  EXPECT_EQ(first, second);
}

TEST(TiledAttention, ScratchIsLinearInTokens) {
  const std::size_t hd = 64;
  const double per_token = double(head_scratch_floats(8192, hd)) / 8192.0;
  EXPECT_LE(per_token, double(hd + 1) * 1.01);  // packed keys plus a score row at most
  EXPECT_LE(head_scratch_floats(8192, hd), 2 * head_scratch_floats(4096, hd));
}

TEST(Softmax, FullyMaskedRowGivesZerosNotNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  for (std::size_t n : {1, 3, 4, 5, 8, 9}) {
    std::vector<float> row(n, -inf);
    softmax_row_f32(row.data(), n);
    for (float p : row) EXPECT_EQ(p, 0.0f) << "n=" << n;
  }
}

TEST(Softmax, HugeLogitsOfBothSignsStayFiniteAndSumToOne) {
  for (std::size_t n : {2, 4, 7, 16, 33, 100, 1000}) {
    auto row = random_vector(n, n, 1e4f);  // logits in [-1e4, 1e4]
    row[n / 2] = 1e4f, row[0] = -1e4f;
    const auto expected = testing::reference_softmax(row);
    softmax_row_f32(row.data(), n);
    EXPECT_TRUE(all_close(row.data(), expected, 1e-6, 1e-5)) << "n=" << n;
    EXPECT_TRUE(testing::finite_and_sums_to_one(row)) << "n=" << n;
  }
}

TEST(Softmax, EqualHugeLogitsShareTheWeightEvenly) {
  std::vector<float> row(8, 1e4f);
  softmax_row_f32(row.data(), row.size());
  double sum = 0;
  for (float p : row) {
    EXPECT_FLOAT_EQ(p, 0.125f);
    sum += p;
  }
  EXPECT_NEAR(sum, 1.0, 1e-6);
}

TEST(Softmax, RepeatedRunsAreBitwiseIdentical) {
  const auto input = random_vector(257, 9, 30.0f);
  auto first = input, second = input;
  softmax_row_f32(first.data(), first.size());
  softmax_row_f32(second.data(), second.size());
  EXPECT_EQ(first, second);
}

}  // namespace
}  // namespace headwise
