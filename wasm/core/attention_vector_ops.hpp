// The small vector loops the attention kernels share: a row's maximum, exp of a shifted row with
// its sum, axpy and scale. Inline, so that each kernel file compiles them into its own loops.
#pragma once

#include <cstddef>
#include <limits>
#include <xsimd/xsimd.hpp>

// Before this header's Batch and kWidth: the SIMD headers' own local aliases of those names would
// otherwise shadow them (-Wshadow).
#include "exp_f32.hpp"
#include "tile_4x2v.hpp"

namespace headwise {
// Internal linkage, as when one file held every kernel: each kernel file gets its own copy, and
// clang inlines these single call sites into the kernel exactly as before.
namespace {

using Batch = xsimd::batch<float>;
constexpr std::size_t kWidth = Batch::size;
constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

inline float max_of(const float* x, std::size_t n) {
  float best = kMinusInf;
  std::size_t i = 0;
  if (n >= kWidth) {
    Batch m = Batch::load_unaligned(x);
    for (i = kWidth; i + kWidth <= n; i += kWidth) m = xsimd::max(m, Batch::load_unaligned(x + i));
    alignas(64) float lanes[kWidth];
    m.store_aligned(lanes);
    for (float lane : lanes) best = lane > best ? lane : best;
  }
  for (; i < n; ++i) best = x[i] > best ? x[i] : best;
  return best;
}

// The sum of a vector's lanes in one order, neighbours first ((0 + 1) + (2 + 3) for 4 lanes),
// whatever the architecture: xsimd's hadd adds in another order on SSE2 (the native build) than on
// SSE3 and up (wasm), and the native and wasm trainers would part by a rounding.
inline float lane_sum(Batch v) {
  alignas(64) float lanes[kWidth];
  v.store_aligned(lanes);
  for (std::size_t n = kWidth; n > 1; n /= 2)
    for (std::size_t i = 0; i < n / 2; ++i) lanes[i] = lanes[2 * i] + lanes[2 * i + 1];
  return lanes[0];
}

// x[i] = Exp(x[i] - shift) for i < n; returns their sum. The tail runs as one padded vector
// (padding -infinity, whose exp is 0, or 2^-125 for exp2_nonpositive_f32: nothing next to the
// sum's 1): short rows cost one vector exp, not several scalar ones.
template <Batch (*Exp)(Batch)>
inline float exp_shifted(float* x, std::size_t n, float shift) {
  const Batch sb(shift);
  Batch sums(0.0f);
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth) {
    const Batch e = Exp(Batch::load_unaligned(x + i) - sb);
    e.store_unaligned(x + i);
    sums += e;
  }
  if (i < n) {
    alignas(64) float tail[kWidth];
    for (std::size_t t = 0; t < kWidth; ++t) tail[t] = i + t < n ? x[i + t] : kMinusInf;
    const Batch e = Exp(Batch::load_aligned(tail) - sb);
    e.store_aligned(tail);
    sums += e;
    for (std::size_t t = 0; i + t < n; ++t) x[i + t] = tail[t];
  }
  return lane_sum(sums);
}

// y[0..n) += a * x[0..n)
inline void axpy(std::size_t n, float a, const float* x, float* y) {
  const Batch av(a);
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth)
    xsimd::fma(av, Batch::load_unaligned(x + i), Batch::load_unaligned(y + i))
        .store_unaligned(y + i);
  for (; i < n; ++i) y[i] += a * x[i];
}

inline void scale(std::size_t n, float a, float* y) {
  const Batch av(a);
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth) (Batch::load_unaligned(y + i) * av).store_unaligned(y + i);
  for (; i < n; ++i) y[i] *= a;
}

}  // namespace
}  // namespace headwise
