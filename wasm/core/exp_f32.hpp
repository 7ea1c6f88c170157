// exp and 2^x for batches of floats, written for SIMD128: xsimd 8.1.0's exp goes through SSE
// conversions that Emscripten emulates lane by lane, and measures 3x slower in Node 20 (same speed
// natively). Range reduction by a rounding constant (float adds only), the Cephes expf polynomial,
// 2^n built in the exponent bits. Relative error below 1e-7; exp(x) = 0 for x < -87.34 (incl.
// -infinity, i.e. masked scores), so results never go denormal.
#pragma once

#include <cstdint>
#include <xsimd/xsimd.hpp>

namespace headwise {

inline xsimd::batch<float> exp_f32(xsimd::batch<float> x) {
  using Batch = xsimd::batch<float>;
  using Ints = xsimd::batch<std::int32_t>;
  const Batch lo(-87.33654f), hi(88.37626f);  // 2^n stays a normal float for n in [-126, 127]
  const Batch clamped = xsimd::min(xsimd::max(x, lo), hi);
  const Batch round(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer in the low bits
  const Batch shifted = clamped * Batch(1.44269504088896341f) + round;
  const Batch n = shifted - round;
  Batch r = clamped - n * Batch(0.693359375f);  // ln 2 in two parts, exact product for the first
  r = r - n * Batch(-2.12194440e-4f);
  Batch y(1.9875691500e-4f);
  y = y * r + Batch(1.3981999507e-3f);
  y = y * r + Batch(8.3334519073e-3f);
  y = y * r + Batch(4.1665795894e-2f);
  y = y * r + Batch(1.6666665459e-1f);
  y = y * r + Batch(5.0000001201e-1f);
  y = y * (r * r) + r + Batch(1.0f);
  const Ints exponent = xsimd::bitwise_cast<Ints>(shifted) - xsimd::bitwise_cast<Ints>(round);
  const Batch two_to_n = xsimd::bitwise_cast<Batch>((exponent + Ints(127)) << 23);
  return xsimd::select(x < lo, Batch(0.0f), y * two_to_n);
}

// 2^x for x <= 0, the weights of a softmax whose scores were scaled by log2(e) up front (one
// multiply per score folded into the 1/sqrt(hd) the kernels apply anyway). About half the work of
// exp_f32: no upper clamp, no select, the rounding constant's bits shifted straight into the
// exponent, a degree-5 minimax polynomial for 2^f on [-0.5, 0.5] (relative error below 2.5e-7
// in float). Below -125 (incl. -infinity) it returns 2^-125, not 0: next to a softmax's running
// sum, which is at least 1, that is below float resolution; results never go denormal.
inline xsimd::batch<float> exp2_nonpositive_f32(xsimd::batch<float> x) {
  using Batch = xsimd::batch<float>;
  using Ints = xsimd::batch<std::int32_t>;
  const Batch round(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer in the low bits
  const Batch clamped = xsimd::max(x, Batch(-125.0f));
  const Batch shifted = clamped + round;
  const Batch n = shifted - round;
  const Batch f = clamped - n;
  Batch y(1.327647245e-3f);
  y = y * f + Batch(9.675540961e-3f);
  y = y * f + Batch(5.550713092e-2f);
  y = y * f + Batch(2.402212024e-1f);
  y = y * f + Batch(6.931469440e-1f);
  y = y * f + Batch(1.000000119e+0f);
  // The low bits of `shifted` hold n in two's complement; shifted left by 23 they are n's
  // exponent field (the constant's own bits overflow out).
  const Ints exponent = (xsimd::bitwise_cast<Ints>(shifted) << 23) + Ints(127 << 23);
  return y * xsimd::bitwise_cast<Batch>(exponent);
}

}  // namespace headwise
