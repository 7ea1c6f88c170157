// The softmax cross-entropy of layers/cross_entropy.cpp against a double loop: every class count
// from 1 to 17 and across two and three vectors (31..33, 64, 65: the SIMD exp's tails), masked
// rows, a divisor, and logits of +-1e4 (the max-shift must keep them finite). Tolerance on the
// loss 1e-6 + 1e-6 |ref| per row, on dlogits 1e-7 + 1e-5 |ref|.
#include "layers/cross_entropy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "test_helpers.hpp"

namespace headwise::layers {
namespace {

using testing::all_close;
using testing::random_vector;

struct Reference {
  double loss = 0;
  std::size_t counted = 0;
  std::vector<double> d;
};

Reference reference(std::size_t rows, std::size_t K, const std::vector<float>& logits,
                    const std::vector<int>& targets, const std::vector<std::uint8_t>& mask,
                    std::size_t divisor) {
  Reference out;
  out.d.assign(rows * K, 0.0);
  for (std::size_t r = 0; r < rows; ++r) out.counted += mask[r];
  const double over = double(divisor ? divisor : out.counted);
  for (std::size_t r = 0; r < rows; ++r) {
    if (!mask[r]) continue;
    const float* row = logits.data() + r * K;
    double max = row[0];
    for (std::size_t j = 1; j < K; ++j) max = std::max(max, double(row[j]));
    double sum = 0;
    for (std::size_t j = 0; j < K; ++j) sum += std::exp(double(row[j]) - max);
    const std::size_t t = std::size_t(targets[r]);
    out.loss += std::log(sum) - (double(row[t]) - max);
    for (std::size_t j = 0; j < K; ++j)
      out.d[r * K + j] = (std::exp(double(row[j]) - max) / sum - (j == t ? 1.0 : 0.0)) / over;
  }
  out.loss /= double(out.counted);
  return out;
}

void expect_matches(std::size_t K, float bound, std::size_t divisor) {
  const std::size_t rows = 5;
  auto logits = random_vector(rows * K, K * 31 + divisor, bound);
  std::vector<int> targets(rows);
  for (std::size_t r = 0; r < rows; ++r) targets[r] = int((r * 7 + K) % K);
  const std::vector<std::uint8_t> mask{1, 0, 1, 1, 1};
  const Reference ref = reference(rows, K, logits, targets, mask, divisor);
  std::vector<float> d(rows * K, -9.0f);
  const LossSums got = cross_entropy(rows, K, logits.data(), targets.data(), mask.data(), nullptr,
                                     d.data(), divisor);
  EXPECT_EQ(got.counted, ref.counted) << "K=" << K;
  EXPECT_NEAR(got.loss, ref.loss, 1e-6 + 1e-6 * std::fabs(ref.loss)) << "K=" << K;
  EXPECT_TRUE(all_close(d.data(), ref.d, 1e-7, 1e-5)) << "K=" << K << " bound=" << bound;
  // Without dlogits: the same loss.
  const LossSums forward_only =
      cross_entropy(rows, K, logits.data(), targets.data(), mask.data(), nullptr, nullptr, divisor);
  EXPECT_EQ(forward_only.loss, got.loss) << "K=" << K;
}

TEST(CrossEntropy, MatchesDoubleLoopsAtEveryTailSize) {
  for (std::size_t K :
       {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 31, 32, 33, 64, 65}) {
    expect_matches(K, 4.0f, 0);
    expect_matches(K, 4.0f, 9);
    if (HasFailure()) return;
  }
}

TEST(CrossEntropy, HugeLogitsStayFinite) {
  for (std::size_t K : {2, 5, 17, 33}) {
    expect_matches(K, 1e4f, 0);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace headwise::layers
