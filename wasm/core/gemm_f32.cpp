#include "gemm_f32.hpp"

#include <xsimd/xsimd.hpp>

namespace headwise {

namespace {

using Batch = xsimd::batch<float>;
constexpr std::size_t kWidth = Batch::size;

// One register tile: kRows rows of C by kVectors SIMD vectors of columns, accumulated over all k.
// 4 x 2 vectors keeps 8 accumulators live, which V8 holds in registers without spilling.
template <std::size_t kRows, std::size_t kVectors>
void tile(std::size_t k, const float* a, std::size_t lda, const float* b, std::size_t ldb,
          const float* bias, float* c, std::size_t ldc) {
  Batch acc[kRows][kVectors];
  for (std::size_t v = 0; v < kVectors; ++v) {
    const Batch init = bias ? Batch::load_unaligned(bias + v * kWidth) : Batch(0.0f);
    for (std::size_t r = 0; r < kRows; ++r) acc[r][v] = init;
  }
  for (std::size_t p = 0; p < k; ++p) {
    Batch bv[kVectors];
    for (std::size_t v = 0; v < kVectors; ++v) bv[v] = Batch::load_unaligned(b + p * ldb + v * kWidth);
    for (std::size_t r = 0; r < kRows; ++r) {
      const Batch av(a[r * lda + p]);
      for (std::size_t v = 0; v < kVectors; ++v) acc[r][v] = xsimd::fma(av, bv[v], acc[r][v]);
    }
  }
  for (std::size_t r = 0; r < kRows; ++r)
    for (std::size_t v = 0; v < kVectors; ++v) acc[r][v].store_unaligned(c + r * ldc + v * kWidth);
}

// Columns left over after the vector tiles, one row and one column at a time.
void scalar_columns(std::size_t rows, std::size_t j0, std::size_t n, std::size_t k, const float* a,
                    std::size_t lda, const float* b, std::size_t ldb, const float* bias, float* c,
                    std::size_t ldc) {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = j0; j < n; ++j) {
      float sum = bias ? bias[j] : 0.0f;
      for (std::size_t p = 0; p < k; ++p) sum += a[r * lda + p] * b[p * ldb + j];
      c[r * ldc + j] = sum;
    }
  }
}

template <std::size_t kRows>
void row_block(std::size_t n, std::size_t k, const float* a, std::size_t lda, const float* b,
               std::size_t ldb, const float* bias, float* c, std::size_t ldc) {
  std::size_t j = 0;
  for (; j + 2 * kWidth <= n; j += 2 * kWidth)
    tile<kRows, 2>(k, a, lda, b + j, ldb, bias ? bias + j : nullptr, c + j, ldc);
  for (; j + kWidth <= n; j += kWidth)
    tile<kRows, 1>(k, a, lda, b + j, ldb, bias ? bias + j : nullptr, c + j, ldc);
  if (j < n) scalar_columns(kRows, j, n, k, a, lda, b, ldb, bias, c, ldc);
}

}  // namespace

void gemm_f32(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
              const float* bias, float* c, std::size_t ldc) {
  std::size_t i = 0;
  for (; i + 4 <= m; i += 4)
    row_block<4>(n, k, a.data + i * a.stride, a.stride, b.data, b.stride, bias, c + i * ldc, ldc);
  for (; i < m; ++i)
    row_block<1>(n, k, a.data + i * a.stride, a.stride, b.data, b.stride, bias, c + i * ldc, ldc);
}

}  // namespace headwise
