// The deterministic generator behind seeded weights and inputs. It is counter-based, so every
// element is a pure function of (seed, stream, index) and any platform reproduces it bit for bit:
//
//   mix64(z): z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB;
//             z ^= z >> 31                                  (SplitMix64's finaliser, mod 2^64)
//   key     = mix64(seed + 0x9E3779B97F4A7C15 * (stream + 1))
//   bits    = mix64(key  + 0x9E3779B97F4A7C15 * (index + 1))
//   u       = (bits >> 40) / 2^24                           (exact in float, 0 <= u < 1)
//   value   = float(2u - 1) * bound                         (one float rounding)
//
// Weights use bound = float(1 / sqrt(fan_in)) (fan_in = rows of the matrix, as PyTorch's Linear).
// Each tensor's stream number is in its row of the tensor table (tensor_table.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace headwise {

std::uint64_t mix64(std::uint64_t z);
float uniform_value(std::uint64_t seed, std::uint32_t stream, std::uint64_t index, float bound);
void fill_uniform(float* out, std::size_t count, std::uint64_t seed, std::uint32_t stream,
                  float bound);
float fan_in_bound(std::size_t fan_in);

}  // namespace headwise
