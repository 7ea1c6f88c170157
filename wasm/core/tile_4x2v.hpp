// The register tile shared by the GEMM micro-kernel and the attention scores: 4 rows by 2 SIMD
// vectors, 8 accumulators, which V8 keeps in registers (measured in Node 20: tiles with 12 or more
// vector accumulators spill and drop from about 47 to about 25 GFLOP/s).
#pragma once

#include <cstddef>
#include <xsimd/xsimd.hpp>

#include "simd_sizes.hpp"

namespace headwise {

using TileAccumulators = xsimd::batch<float>[kTileRows][kTileVectors];

// c[r][v] += sum over p < k of a[p * 4 + r] * b[p * 2W + v * W .. + W), W = SIMD width: a packed
// 4 values per step (rows interleaved), b packed 2 vectors per step.
inline void multiply_add_4x2v(std::size_t k, const float* a, const float* b, TileAccumulators& c) {
  using Batch = xsimd::batch<float>;
  constexpr std::size_t kWidth = Batch::size;
  for (std::size_t p = 0; p < k; ++p, a += kTileRows, b += kTileVectors * kWidth) {
    const Batch b0 = Batch::load_unaligned(b), b1 = Batch::load_unaligned(b + kWidth);
    for (std::size_t r = 0; r < kTileRows; ++r) {
      const Batch ar(a[r]);
      c[r][0] = xsimd::fma(ar, b0, c[r][0]);
      c[r][1] = xsimd::fma(ar, b1, c[r][1]);
    }
  }
}

}  // namespace headwise
