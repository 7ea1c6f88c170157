#include "linalg.hpp"

#include "gemm_f32.hpp"

namespace headwise {

namespace {

// All three products are one gemm_f32 call: transposes are absorbed in its packing, and
// accumulate is beta = 1.
void product(Trans ta, Trans tb, std::size_t m, std::size_t n, std::size_t k, const float* a,
             std::size_t lda, const float* b, std::size_t ldb, const float* bias, float* c,
             bool accumulate) {
  GemmArgs g;
  g.trans_a = ta, g.trans_b = tb, g.m = m, g.n = n, g.k = k;
  g.a = a, g.lda = lda, g.b = b, g.ldb = ldb;
  g.beta = accumulate ? 1.0f : 0.0f;
  g.c = c, g.ldc = n, g.bias = bias;
  gemm_f32(g);
}

}  // namespace

void matmul(std::size_t m, std::size_t n, std::size_t k, const float* a, const float* b,
            const float* bias, float* c, bool accumulate) {
  product(Trans::kNo, Trans::kNo, m, n, k, a, k, b, n, bias, c, accumulate);
}

void matmul_at_b(std::size_t m, std::size_t n, std::size_t k, const float* a, const float* b,
                 float* c, bool accumulate) {
  product(Trans::kYes, Trans::kNo, m, n, k, a, m, b, n, nullptr, c, accumulate);
}

void matmul_a_bt(std::size_t m, std::size_t n, std::size_t k, const float* a, const float* b,
                 float* c, bool accumulate) {
  product(Trans::kNo, Trans::kYes, m, n, k, a, k, b, k, nullptr, c, accumulate);
}

void column_sums(std::size_t m, std::size_t n, const float* a, float* out, bool accumulate) {
  if (!accumulate) {
    for (std::size_t j = 0; j < n; ++j) out[j] = 0.0f;
  }
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) out[j] += a[i * n + j];
  }
}

}  // namespace headwise
