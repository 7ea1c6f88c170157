#include "cross_entropy.hpp"

#include <algorithm>
#include <cmath>

namespace headwise::layers {

LossSums cross_entropy(std::size_t rows, std::size_t K, const float* logits, const int* targets,
                       const std::uint8_t* mask, const std::uint8_t* groups, float* dlogits,
                       std::size_t divisor) {
  LossSums out;
  for (std::size_t r = 0; r < rows; ++r) out.counted += !mask || mask[r];
  const std::size_t over = divisor ? divisor : out.counted;
  const float inv_count = over ? 1.0f / static_cast<float>(over) : 0.0f;
  for (std::size_t r = 0; r < rows; ++r) {
    float* d = dlogits ? dlogits + r * K : nullptr;
    if (mask && !mask[r]) {
      if (d) std::fill_n(d, K, 0.0f);
      continue;
    }
    const float* row = logits + r * K;
    const std::size_t best = static_cast<std::size_t>(std::max_element(row, row + K) - row);
    const float max = row[best];
    float sum = 0.0f;
    for (std::size_t j = 0; j < K; ++j) sum += std::exp(row[j] - max);
    const std::size_t t = static_cast<std::size_t>(targets[r]);
    const double loss = static_cast<double>(std::log(sum) - (row[t] - max));
    out.loss += loss;
    out.correct += best == t;
    const std::size_t group = groups ? std::min<std::size_t>(groups[r], kMaxGroups - 1) : 0;
    out.group_loss[group] += loss;
    out.group_correct[group] += best == t;
    out.group_counted[group] += 1;
    if (!d) continue;
    const float inv_sum = 1.0f / sum;
    for (std::size_t j = 0; j < K; ++j) d[j] = std::exp(row[j] - max) * inv_sum * inv_count;
    d[t] -= inv_count;
  }
  out.loss_sum = out.loss;
  if (out.counted) out.loss /= static_cast<double>(out.counted);
  return out;
}

}  // namespace headwise::layers
