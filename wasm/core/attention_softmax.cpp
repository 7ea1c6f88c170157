#include <algorithm>

#include "attention_head.hpp"
#include "attention_vector_ops.hpp"

namespace headwise {

// One row's softmax in SIMD128: the maximum, the kernels' vector exp (relative error below 1e-7)
// with the sum, one scale. The C library's scalar expf was a tenth of a training step.
void softmax_row_f32(float* row, std::size_t n) {
  const float max = max_of(row, n);
  if (max == kMinusInf) {  // fully masked: no weight anywhere
    std::fill(row, row + n, 0.0f);
    return;
  }
  const float sum = exp_shifted<exp_f32>(row, n, max);
  scale(n, 1.0f / sum, row);
}

}  // namespace headwise
