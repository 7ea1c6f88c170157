// Raw kernel entry points for bench/gemm.mjs: C functions over the wasm heap, no Embind, so the
// timing sees the kernel and nothing else. Built only by bench/build-kernels.sh.
#include <cstddef>

#include "attention_head.hpp"
#include "gemm_f32.hpp"

extern "C" {

// One product on buffers the caller allocated with malloc, C = op(A) op(B) (+ C). path, low two
// bits: 0 chosen, 1 packed, 2 direct (unpacked), 3 dot products; +4: A transposed (stored k x m),
// +8: B transposed (stored n x k), +16: accumulate into C (beta 1). Plain 1 and 2 mean what they
// meant before the flags existed, so older builds time the same forward products.
void bench_gemm(int path, int m, int n, int k, const float* a, const float* b, float* c) {
  using headwise::Trans;
  constexpr headwise::GemmPath kPaths[] = {headwise::GemmPath::kChosen, headwise::GemmPath::kPacked,
                                           headwise::GemmPath::kDirect, headwise::GemmPath::kDots};
  const auto M = std::size_t(m), N = std::size_t(n), K = std::size_t(k);
  const bool ta = (path & 4) != 0, tb = (path & 8) != 0;
  const float beta = (path & 16) != 0 ? 1.0f : 0.0f;
  headwise::gemm_f32(
      headwise::GemmArgs{ta ? Trans::kYes : Trans::kNo, tb ? Trans::kYes : Trans::kNo, M, N, K,
                         1.0f, a, ta ? M : K, b, tb ? K : N, beta, c, N, nullptr},
      kPaths[path & 3]);
}

// The same product `count` times in one call: small products (microseconds each) timed in bulk.
void bench_gemm_many(int path, int count, int m, int n, int k, const float* a, const float* b,
                     float* c) {
  for (int i = 0; i < count; ++i) bench_gemm(path, m, n, k, a, b, c);
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
