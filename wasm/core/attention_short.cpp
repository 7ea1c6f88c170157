// The plain attention kernel for short, narrow heads, where tiles would cost more than they save.
#include <cmath>
#include <limits>

#include "attention_head.hpp"

namespace headwise {

namespace {
constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
}  // namespace

void attend_head_short_f32(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                           const float* k, const float* v, float* context,
                           std::size_t context_stride) {
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(head_dim));
  float row[kShortTokens];
  for (std::size_t i = 0; i < tokens; ++i) {
    const std::size_t visible = causal ? i + 1 : tokens;
    const float* qi = q + i * head_dim;
    float max = kMinusInf;
    for (std::size_t j = 0; j < visible; ++j) {
      const float* kj = k + j * head_dim;
      float dot = 0.0f;
      for (std::size_t d = 0; d < head_dim; ++d) dot += qi[d] * kj[d];
      row[j] = dot * inv_sqrt;
      max = row[j] > max ? row[j] : max;
    }
    float total = 0.0f;
    for (std::size_t j = 0; j < visible; ++j) total += row[j] = std::exp(row[j] - max);
    const float inv_sum = 1.0f / total;
    float* ctx = context + i * context_stride;
    for (std::size_t d = 0; d < head_dim; ++d) {
      float sum = 0.0f;
      for (std::size_t j = 0; j < visible; ++j) sum += row[j] * v[j * head_dim + d];
      ctx[d] = sum * inv_sum;
    }
  }
}

}  // namespace headwise
