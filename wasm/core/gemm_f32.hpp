// C = alpha op(A) op(B) + beta C (+ bias) for row-major float matrices, op = as stored or
// transposed: the shape of BLAS sgemm, SIMD through xsimd.
#pragma once

#include <cstddef>

namespace headwise {

struct MatrixView {
  const float* data;
  std::size_t stride;  // floats between the starts of consecutive rows
};

// Whether an operand is used as stored or transposed.
enum class Trans : bool { kNo = false, kYes = true };

// One product C = alpha op(A) op(B) + beta C + bias, all row-major.
// op(A) is m x k: A is stored m x k (kNo) or k x m (kYes), lda floats between its stored rows.
// op(B) is k x n: B is stored k x n (kNo) or n x k (kYes), ldb floats between its stored rows.
// C is m x n with ldc floats between rows; nothing outside its m x n entries is read or written.
// beta == 0 never reads C (it may hold NaN); beta == 1 accumulates. bias (n floats or null) is
// added unscaled to every row. alpha == 0 or k == 0 read neither A nor B.
struct GemmArgs {
  Trans trans_a = Trans::kNo;
  Trans trans_b = Trans::kNo;
  std::size_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  const float* a = nullptr;
  std::size_t lda = 0;
  const float* b = nullptr;
  std::size_t ldb = 0;
  float beta = 0.0f;
  float* c = nullptr;
  std::size_t ldc = 0;
  const float* bias = nullptr;
};

// The three algorithms: packed panels and cache blocks (large products), A and B read in place
// (small products), dot products along k (n under two vectors, long k). kChosen picks by shape;
// tests and benchmarks pin one. Transposes are absorbed by packing; every path takes every form.
enum class GemmPath { kChosen, kPacked, kDirect, kDots };

// Not reentrant: the packed panels are static scratch (the core is single-threaded).
void gemm_f32(const GemmArgs& args, GemmPath path = GemmPath::kChosen);

// sgemm's argument order (row-major, no bias).
inline void gemm_f32(Trans trans_a, Trans trans_b, std::size_t m, std::size_t n, std::size_t k,
                     float alpha, const float* a, std::size_t lda, const float* b, std::size_t ldb,
                     float beta, float* c, std::size_t ldc) {
  gemm_f32(GemmArgs{trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nullptr});
}

// The forward's product: C (m x n, row stride ldc) = A (m x k) @ B (k x n) + bias (n, may be
// null). C is overwritten.
void gemm_f32(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
              const float* bias, float* c, std::size_t ldc);

// The same with the path pinned (see GemmPath).
void gemm_f32_packed(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                     const float* bias, float* c, std::size_t ldc);
void gemm_f32_direct(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                     const float* bias, float* c, std::size_t ldc);
void gemm_f32_dots(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                   const float* bias, float* c, std::size_t ldc);

}  // namespace headwise
