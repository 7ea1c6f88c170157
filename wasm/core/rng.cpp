#include "rng.hpp"

#include <cmath>

namespace headwise {

namespace {
constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

std::uint64_t stream_key(std::uint64_t seed, std::uint32_t stream) {
  return mix64(seed + kGolden * (static_cast<std::uint64_t>(stream) + 1));
}

float value_from_key(std::uint64_t key, std::uint64_t index, float bound) {
  const std::uint64_t bits = mix64(key + kGolden * (index + 1));
  const float u = static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
  return (2.0f * u - 1.0f) * bound;
}
}  // namespace

std::uint64_t mix64(std::uint64_t z) {
  z ^= z >> 30;
  z *= 0xBF58476D1CE4E5B9ULL;
  z ^= z >> 27;
  z *= 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return z;
}

float uniform_value(std::uint64_t seed, std::uint32_t stream, std::uint64_t index, float bound) {
  return value_from_key(stream_key(seed, stream), index, bound);
}

void fill_uniform(float* out, std::size_t count, std::uint64_t seed, std::uint32_t stream,
                  float bound) {
  const std::uint64_t key = stream_key(seed, stream);
  for (std::size_t i = 0; i < count; ++i) out[i] = value_from_key(key, i, bound);
}

float fan_in_bound(std::size_t fan_in) { return 1.0f / std::sqrt(static_cast<float>(fan_in)); }

}  // namespace headwise
