#include "cross_entropy.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "attention_vector_ops.hpp"

namespace headwise::layers {

LossSums cross_entropy(std::size_t rows, std::size_t K, const float* logits, const int* targets,
                       const std::uint8_t* mask, const std::uint8_t* groups, float* dlogits,
                       std::size_t divisor) {
  LossSums out;
  for (std::size_t r = 0; r < rows; ++r) out.counted += !mask || mask[r];
  const std::size_t over = divisor ? divisor : out.counted;
  const float inv_count = over ? 1.0f / static_cast<float>(over) : 0.0f;
  // exp(logit - max) for one row, through the vector exp (the C library's scalar expf was 5% of a
  // training step): in dlogits when asked for, else here.
  std::vector<float> exps(dlogits ? 0 : K);
  for (std::size_t r = 0; r < rows; ++r) {
    float* d = dlogits ? dlogits + r * K : nullptr;
    if (mask && !mask[r]) {
      if (d) std::fill_n(d, K, 0.0f);
      continue;
    }
    const float* row = logits + r * K;
    const std::size_t best = static_cast<std::size_t>(std::max_element(row, row + K) - row);
    const float max = row[best];
    float* e = d ? d : exps.data();
    std::copy_n(row, K, e);
    const float sum = exp_shifted<exp_f32>(e, K, max);
    const std::size_t t = static_cast<std::size_t>(targets[r]);
    const double loss = static_cast<double>(std::log(sum) - (row[t] - max));
    out.loss += loss;
    out.correct += best == t;
    const std::size_t group = groups ? std::min<std::size_t>(groups[r], kMaxGroups - 1) : 0;
    out.group_loss[group] += loss;
    out.group_correct[group] += best == t;
    out.group_counted[group] += 1;
    if (!d) continue;
    scale(K, inv_count / sum, d);
    d[t] -= inv_count;
  }
  out.loss_sum = out.loss;
  if (out.counted) out.loss /= static_cast<double>(out.counted);
  return out;
}

}  // namespace headwise::layers
