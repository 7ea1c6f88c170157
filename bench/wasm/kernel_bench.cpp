// Raw kernel entry points for bench/gemm.mjs: C functions over the wasm heap, no Embind, so the
// timing sees the kernel and nothing else. Built only by bench/build-kernels.sh.
#include <cstddef>

#include "attention_head.hpp"
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

// heads x one head's attention (T x hd each, q/k/v contiguous per head), tiled path; scratch is
// the caller's, head_scratch_floats(T, hd) floats (bench_head_scratch_floats tells how many).
int bench_head_scratch_floats(int tokens, int head_dim) {
  return int(headwise::head_scratch_floats(std::size_t(tokens), std::size_t(head_dim)));
}

void bench_attend(int heads, int tokens, int head_dim, int causal, const float* q, const float* k,
                  const float* v, float* scratch, float* context) {
  const auto T = std::size_t(tokens), hd = std::size_t(head_dim);
  for (std::size_t h = 0; h < std::size_t(heads); ++h)
    headwise::attend_head_tiled_f32(T, hd, causal != 0, q + h * T * hd, k + h * T * hd,
                                    v + h * T * hd, {scratch}, context + h * T * hd, hd);
}
}
