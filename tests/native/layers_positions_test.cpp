// The position kinds against their definitions written as plain loops in double precision, and
// the properties that make each work: RoPE's q.k depends only on the offset m - n (shift both,
// the score stays); sinusoidal PE(i).PE(j) depends only on i - j; ALiBi's bias is -m_h |i - j|.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "layers/positions/position_kind.hpp"
#include "test_helpers.hpp"

namespace headwise::layers {
namespace {

const PositionKind& kind(const char* name) {
  const PositionKind* k = find_position_kind(name);
  EXPECT_NE(k, nullptr) << name;
  return *k;
}

// The registry's invariants, for whatever kinds it lists: names unique and found, the names list in
// the same order, each kind entering where its hooks say (what the pages draw from `enters`).
TEST(Positions, RegistryListsEveryKindOnce) {
  std::vector<std::string> names;
  const char* const* listed = position_kind_names();
  for (const PositionKind* const* k = position_kinds(); *k; ++k, ++listed) {
    const PositionKind& kind = **k;
    ASSERT_NE(*listed, nullptr);
    EXPECT_STREQ(*listed, kind.name);
    EXPECT_EQ(find_position_kind(kind.name), &kind);
    EXPECT_EQ(std::count(names.begin(), names.end(), kind.name), 0) << kind.name;
    names.push_back(kind.name);
    EXPECT_NE(std::string(kind.label), "") << kind.name;
    const std::string enters = kind.enters;
    const bool input = kind.learned_table || kind.add_to_input;
    EXPECT_EQ(enters == "input", input) << kind.name;
    EXPECT_EQ(enters == "queries and keys", kind.rotate != nullptr) << kind.name;
    EXPECT_EQ(enters == "scores", kind.score_bias != nullptr) << kind.name;
    EXPECT_EQ(enters == "nowhere", !input && !kind.rotate && !kind.score_bias) << kind.name;
  }
  EXPECT_EQ(*listed, nullptr);
  EXPECT_GE(names.size(), 5u);  // none, learned, sinusoidal, rope, alibi: the lecture's five
  EXPECT_TRUE(kind("learned").learned_table);
  EXPECT_STREQ(kind("rope").enters, "queries and keys");
  EXPECT_STREQ(kind("alibi").enters, "scores");
  EXPECT_EQ(find_position_kind("rotary"), nullptr);
}

TEST(Positions, RopeIsTheComplexRotationOfEachPair) {
  for (std::size_t hd : {1, 2, 3, 8, 9}) {
    const std::vector<float> x = testing::random_vector(hd, 40 + hd);
    for (std::size_t t : {0, 1, 5, 63}) {
      std::vector<float> got = x;
      kind("rope").rotate(t, hd, got.data(), false);
      for (std::size_t i = 0; 2 * i + 1 < hd; ++i) {
        const double theta = std::pow(10000.0, -2.0 * double(i) / double(hd));
        const std::complex<double> z =
            std::complex<double>(x[2 * i], x[2 * i + 1]) * std::polar(1.0, double(t) * theta);
        EXPECT_NEAR(got[2 * i], z.real(), 1e-5) << "hd " << hd << " t " << t;
        EXPECT_NEAR(got[2 * i + 1], z.imag(), 1e-5);
      }
      if (hd % 2) {
        EXPECT_EQ(got[hd - 1], x[hd - 1]);  // an odd last component stays
      }
      kind("rope").rotate(t, hd, got.data(), true);  // the inverse undoes it
      for (std::size_t i = 0; i < hd; ++i) EXPECT_NEAR(got[i], x[i], 1e-5);
    }
  }
}

TEST(Positions, RopeScoresDependOnlyOnTheOffset) {
  const std::size_t hd = 16;
  const std::vector<float> q = testing::random_vector(hd, 1), k = testing::random_vector(hd, 2);
  auto score = [&](std::size_t m, std::size_t n) {
    std::vector<float> a = q, b = k;
    kind("rope").rotate(m, hd, a.data(), false);
    kind("rope").rotate(n, hd, b.data(), false);
    double dot = 0;
    for (std::size_t d = 0; d < hd; ++d) dot += double(a[d]) * b[d];
    return dot;
  };
  for (std::size_t m : {3, 7, 20})
    for (std::size_t n = 0; n <= m; ++n)
      for (std::size_t shift : {1, 5, 40})
        EXPECT_NEAR(score(m + shift, n + shift), score(m, n), 1e-4);
  EXPECT_GT(std::fabs(score(7, 0) - score(7, 6)), 1e-3);  // and it does depend on the offset
}

TEST(Positions, SinusoidalMatchesItsDefinitionAndItsProductsTheDistance) {
  const std::size_t D = 12;
  auto pe = [&](std::size_t t) {
    std::vector<float> row(D, 0.0f);
    kind("sinusoidal").add_to_input(t, D, row.data());
    return row;
  };
  for (std::size_t t : {0, 1, 9}) {
    const std::vector<float> row = pe(t);
    for (std::size_t i = 0; 2 * i < D; ++i) {
      const double a = double(t) / std::pow(10000.0, 2.0 * double(i) / double(D));
      EXPECT_NEAR(row[2 * i], std::sin(a), 1e-6);
      EXPECT_NEAR(row[2 * i + 1], std::cos(a), 1e-6);
    }
  }
  auto dot = [&](std::size_t i, std::size_t j) {
    const std::vector<float> a = pe(i), b = pe(j);
    double s = 0;
    for (std::size_t d = 0; d < D; ++d) s += double(a[d]) * b[d];
    return s;
  };
  for (std::size_t gap : {0, 1, 4}) EXPECT_NEAR(dot(3 + gap, 3), dot(10 + gap, 10), 1e-5);
}

TEST(Positions, AlibiIsALinearPenaltyPerHead) {
  for (std::size_t heads : {1, 4, 8})
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t i : {0, 3, 9})
        for (std::size_t j = 0; j <= 9; ++j) {
          const double slope = std::pow(2.0, -8.0 * double(h + 1) / double(heads));
          EXPECT_NEAR(kind("alibi").score_bias(h, heads, i, j),
                      -slope * std::fabs(double(i) - double(j)), 1e-6);
        }
}

}  // namespace
}  // namespace headwise::layers
