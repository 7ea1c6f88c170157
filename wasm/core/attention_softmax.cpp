#include <algorithm>

#include "attention_head.hpp"
#include "attention_vector_ops.hpp"
#include "exp_f32.hpp"

namespace headwise {

void softmax_row_f32(float* row, std::size_t n) {
  if (n == 0) return;
  const float m = max_of(row, n);
  if (m == kMinusInf) {  // fully masked: no weight anywhere (exp(-inf - -inf) would be NaN)
    std::fill(row, row + n, 0.0f);
    return;
  }
  scale(n, 1.0f / exp_shifted<exp_f32>(row, n, m), row);
}

}  // namespace headwise
