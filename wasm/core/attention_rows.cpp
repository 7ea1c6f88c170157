// The attention kernel that writes whole score rows (used when scores or attention are asked for).
#include <algorithm>
#include <cmath>

#include "attention_head.hpp"
#include "attention_vector_ops.hpp"

namespace headwise {

using namespace attention_sizes;

void attend_head_rows_f32(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                          const float* k, const float* v, HeadScratch scratch, HeadOutputs out) {
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(head_dim));
  float* k_transposed = scratch.data;
  float* row = k_transposed + keys_floats(tokens, head_dim);
  // K^T lets each score row be built from contiguous axpys instead of horizontal dot products.
  for (std::size_t j = 0; j < tokens; ++j)
    for (std::size_t d = 0; d < head_dim; ++d) k_transposed[d * tokens + j] = k[j * head_dim + d];

  for (std::size_t i = 0; i < tokens; ++i) {
    const std::size_t visible = causal ? i + 1 : tokens;
    std::fill(row, row + visible, 0.0f);
    for (std::size_t d = 0; d < head_dim; ++d)
      axpy(visible, q[i * head_dim + d] * inv_sqrt, k_transposed + d * tokens, row);
    if (out.scores) {
      float* s = out.scores + i * tokens;
      std::copy(row, row + visible, s);
      std::fill(s + visible, s + tokens, kMinusInf);
    }
    softmax_row_f32(row, visible);
    if (out.attention) {
      float* p = out.attention + i * tokens;
      std::copy(row, row + visible, p);
      std::fill(p + visible, p + tokens, 0.0f);
    }
    float* ctx = out.context + i * out.context_stride;
    std::fill(ctx, ctx + head_dim, 0.0f);
    for (std::size_t j = 0; j < visible; ++j) axpy(head_dim, row[j], v + j * head_dim, ctx);
  }
}

}  // namespace headwise
