// C = A @ B (+ bias) for row-major float matrices with leading dimensions, SIMD through xsimd.
#pragma once

#include <cstddef>

namespace headwise {

struct MatrixView {
  const float* data;
  std::size_t stride;  // floats between the starts of consecutive rows
};

// C (m x n, row stride ldc) = A (m x k) @ B (k x n) + bias (n, may be null). C is overwritten.
// Large products go through packed panels and cache blocks, small ones read A and B in place.
// Not reentrant: the packed panels are static scratch (the core is single-threaded).
void gemm_f32(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
              const float* bias, float* c, std::size_t ldc);

// The three paths gemm_f32 chooses between, exposed so tests and benchmarks can pin one: packed
// panels, A and B read in place (small products), dot products along k (n < 2 vectors, long k).
void gemm_f32_packed(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                     const float* bias, float* c, std::size_t ldc);
void gemm_f32_direct(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                     const float* bias, float* c, std::size_t ldc);
void gemm_f32_dots(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                   const float* bias, float* c, std::size_t ldc);

}  // namespace headwise
