#include <algorithm>
#include <cmath>
#include <limits>

#include "attention_head.hpp"

namespace headwise {

void softmax_row_f32(float* row, std::size_t n) {
  constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
  float max = kMinusInf;
  for (std::size_t j = 0; j < n; ++j) max = std::max(max, row[j]);
  if (max == kMinusInf) {  // fully masked: no weight anywhere
    std::fill(row, row + n, 0.0f);
    return;
  }
  float sum = 0.0f;
  for (std::size_t j = 0; j < n; ++j) {
    row[j] = std::exp(row[j] - max);
    sum += row[j];
  }
  const float inv = 1.0f / sum;
  for (std::size_t j = 0; j < n; ++j) row[j] *= inv;
}

}  // namespace headwise
