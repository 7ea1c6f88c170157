// Raw kernel entry points for bench/gemm.mjs: C functions over the wasm heap, no Embind, so the
// timing sees the kernel and nothing else. Built only by bench/build-kernels.sh.
#include <cstddef>

#include "gemm_f32.hpp"

extern "C" {

// One C = A @ B product on buffers the caller allocated with malloc. path: 0 chosen, 1 packed,
// 2 direct (unpacked).
void bench_gemm(int path, int m, int n, int k, const float* a, const float* b, float* c) {
  using headwise::MatrixView;
  const auto M = std::size_t(m), N = std::size_t(n), K = std::size_t(k);
  if (path == 1)
    headwise::gemm_f32_packed(M, N, K, MatrixView{a, K}, MatrixView{b, N}, nullptr, c, N);
  else if (path == 2)
    headwise::gemm_f32_direct(M, N, K, MatrixView{a, K}, MatrixView{b, N}, nullptr, c, N);
  else
    headwise::gemm_f32(M, N, K, MatrixView{a, K}, MatrixView{b, N}, nullptr, c, N);
}

}
