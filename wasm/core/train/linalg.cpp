#include "linalg.hpp"

#include <vector>

#include "gemm_f32.hpp"

namespace headwise::train {

namespace {

std::vector<float>& transposed_scratch() {
  static std::vector<float> s;
  return s;
}
std::vector<float>& product_scratch() {
  static std::vector<float> s;
  return s;
}

// src (rows x cols) -> dst (cols x rows)
void transpose(std::size_t rows, std::size_t cols, const float* src, float* dst) {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
  }
}

void product(std::size_t m, std::size_t n, std::size_t k, const float* a, const float* b,
             const float* bias, float* c, bool accumulate) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (std::size_t i = 0; i < m * n; ++i) {
      const float base = bias ? bias[i % n] : 0.0f;
      c[i] = accumulate ? c[i] + base : base;
    }
    return;
  }
  if (!accumulate) {
    gemm_f32(m, n, k, MatrixView{a, k}, MatrixView{b, n}, bias, c, n);
    return;
  }
  std::vector<float>& tmp = product_scratch();
  tmp.resize(m * n);
  gemm_f32(m, n, k, MatrixView{a, k}, MatrixView{b, n}, bias, tmp.data(), n);
  for (std::size_t i = 0; i < m * n; ++i) c[i] += tmp[i];
}

}  // namespace

void matmul(std::size_t m, std::size_t n, std::size_t k, const float* a, const float* b,
            const float* bias, float* c, bool accumulate) {
  product(m, n, k, a, b, bias, c, accumulate);
}

void matmul_at_b(std::size_t m, std::size_t n, std::size_t k, const float* a, const float* b,
                 float* c, bool accumulate) {
  std::vector<float>& at = transposed_scratch();
  at.resize(m * k);
  transpose(k, m, a, at.data());
  product(m, n, k, at.data(), b, nullptr, c, accumulate);
}

void matmul_a_bt(std::size_t m, std::size_t n, std::size_t k, const float* a, const float* b,
                 float* c, bool accumulate) {
  std::vector<float>& bt = transposed_scratch();
  bt.resize(k * n);
  transpose(n, k, b, bt.data());
  product(m, n, k, a, bt.data(), nullptr, c, accumulate);
}

void column_sums(std::size_t m, std::size_t n, const float* a, float* out, bool accumulate) {
  if (!accumulate) {
    for (std::size_t j = 0; j < n; ++j) out[j] = 0.0f;
  }
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) out[j] += a[i * n + j];
  }
}

}  // namespace headwise::train
