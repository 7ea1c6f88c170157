// The three products a backward pass needs, named by shape, each one gemm_f32 call (transposes
// absorbed in its packing). Row-major and dense (leading dimension = columns).
#pragma once

#include <cstddef>

namespace headwise {

// C (m x n) = A (m x k) @ B (k x n) + bias (n, may be null); accumulate adds to C instead.
void matmul(std::size_t m, std::size_t n, std::size_t k, const float* a, const float* b,
            const float* bias, float* c, bool accumulate = false);

// C (m x n) = A^T @ B, where A is (k x m) and B is (k x n): a weight gradient X^T dY.
void matmul_at_b(std::size_t m, std::size_t n, std::size_t k, const float* a, const float* b,
                 float* c, bool accumulate = false);

// C (m x n) = A @ B^T, where A is (m x k) and B is (n x k): an input gradient dY W^T.
void matmul_a_bt(std::size_t m, std::size_t n, std::size_t k, const float* a, const float* b,
                 float* c, bool accumulate = false);

// out (n) = sum over the m rows of A (m x n); accumulate adds to out instead.
void column_sums(std::size_t m, std::size_t n, const float* a, float* out, bool accumulate = false);

}  // namespace headwise
