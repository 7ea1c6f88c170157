#include "attention_head.hpp"

#include <cmath>
#include <limits>
#include <xsimd/xsimd.hpp>

namespace headwise {

namespace {

using Batch = xsimd::batch<float>;
constexpr std::size_t kWidth = Batch::size;

float max_of(const float* x, std::size_t n) {
  float best = -std::numeric_limits<float>::infinity();
  std::size_t i = 0;
  if (n >= kWidth) {
    Batch m = Batch::load_unaligned(x);
    for (i = kWidth; i + kWidth <= n; i += kWidth) m = xsimd::max(m, Batch::load_unaligned(x + i));
    alignas(64) float lanes[kWidth];
    m.store_aligned(lanes);
    for (float lane : lanes) best = lane > best ? lane : best;
  }
  for (; i < n; ++i) best = x[i] > best ? x[i] : best;
  return best;
}

// y[0..n) += a * x[0..n)
void axpy(std::size_t n, float a, const float* x, float* y) {
  const Batch av(a);
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth)
    xsimd::fma(av, Batch::load_unaligned(x + i), Batch::load_unaligned(y + i)).store_unaligned(y + i);
  for (; i < n; ++i) y[i] += a * x[i];
}

void scale(std::size_t n, float a, float* y) {
  const Batch av(a);
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth) (Batch::load_unaligned(y + i) * av).store_unaligned(y + i);
  for (; i < n; ++i) y[i] *= a;
}

}  // namespace

void softmax_row_f32(float* row, std::size_t n) {
  if (n == 0) return;
  const float m = max_of(row, n);
  const Batch mb(m);
  Batch sums(0.0f);
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth) {
    const Batch e = xsimd::exp(Batch::load_unaligned(row + i) - mb);
    e.store_unaligned(row + i);
    sums += e;
  }
  float sum = xsimd::hadd(sums);
  for (; i < n; ++i) {
    row[i] = std::exp(row[i] - m);
    sum += row[i];
  }
  scale(n, 1.0f / sum, row);
}

void attend_head_f32(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                     const float* k, const float* v, HeadScratch scratch, HeadOutputs out) {
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(head_dim));
  // K^T lets each score row be built from contiguous axpys instead of horizontal dot products.
  for (std::size_t j = 0; j < tokens; ++j)
    for (std::size_t d = 0; d < head_dim; ++d) scratch.k_transposed[d * tokens + j] = k[j * head_dim + d];

  float* row = scratch.score_row;
  for (std::size_t i = 0; i < tokens; ++i) {
    const std::size_t visible = causal ? i + 1 : tokens;
    for (std::size_t j = 0; j < visible; ++j) row[j] = 0.0f;
    for (std::size_t d = 0; d < head_dim; ++d)
      axpy(visible, q[i * head_dim + d] * inv_sqrt, scratch.k_transposed + d * tokens, row);
    if (out.scores) {
      float* s = out.scores + i * tokens;
      for (std::size_t j = 0; j < visible; ++j) s[j] = row[j];
      for (std::size_t j = visible; j < tokens; ++j) s[j] = -std::numeric_limits<float>::infinity();
    }
    softmax_row_f32(row, visible);
    if (out.attention) {
      float* p = out.attention + i * tokens;
      for (std::size_t j = 0; j < visible; ++j) p[j] = row[j];
      for (std::size_t j = visible; j < tokens; ++j) p[j] = 0.0f;
    }
    float* ctx = out.context + i * out.context_stride;
    for (std::size_t d = 0; d < head_dim; ++d) ctx[d] = 0.0f;
    for (std::size_t j = 0; j < visible; ++j) axpy(head_dim, row[j], v + j * head_dim, ctx);
  }
}

}  // namespace headwise
