// The position kinds as their definitions, in doubles, for the tests that hand them to
// reference_mha (RefPositions): RoPE's rotation of a q or k row at position t, ALiBi's bias on a
// score, the sinusoidal table's entry.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>

namespace headwise::testing {

// The kinds the double references here and in reference_stack.hpp define; a test holding a kind
// the registry lists to its definition fails by name for any other.
inline bool has_double_definition(const std::string& kind) {
  return kind == "none" || kind == "learned" || kind == "sinusoidal" || kind == "rope" ||
         kind == "alibi";
}

inline void rope(std::size_t t, double* v, std::size_t hd) {
  for (std::size_t i = 0; 2 * i + 1 < hd; ++i) {
    const double angle = double(t) * std::pow(10000.0, -2.0 * double(i) / double(hd));
    const double x = v[2 * i], y = v[2 * i + 1];
    v[2 * i] = x * std::cos(angle) - y * std::sin(angle);
    v[2 * i + 1] = x * std::sin(angle) + y * std::cos(angle);
  }
}

inline double alibi(std::size_t h, std::size_t heads, std::size_t i, std::size_t j) {
  return -std::pow(2.0, -8.0 * double(h + 1) / double(heads)) * std::fabs(double(i) - double(j));
}

inline double sinusoid(std::size_t t, std::size_t d, std::size_t D) {
  const double angle = double(t) / std::pow(10000.0, double(d - d % 2) / double(D));
  return d % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

}  // namespace headwise::testing
