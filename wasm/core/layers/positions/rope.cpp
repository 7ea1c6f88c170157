// Rotary positions (RoPE, Su et al. 2021): each head's q and k are rotated pair by pair,
// (x_2i, x_2i+1) by the angle t * 10000^(-2i / hd) at position t, and v is left alone. Then
// q_m . k_n depends on the positions only through m - n. An odd head_dim leaves its last
// component unrotated.
#include <cmath>

#include "position_kind.hpp"

namespace headwise::layers {

namespace {

void rotate(std::size_t t, std::size_t head_dim, float* v, bool inverse) {
  for (std::size_t i = 0; 2 * i + 1 < head_dim; ++i) {
    const double angle =
        double(t) * std::pow(10000.0, -2.0 * double(i) / double(head_dim)) * (inverse ? -1 : 1);
    const float c = static_cast<float>(std::cos(angle)), s = static_cast<float>(std::sin(angle));
    const float x = v[2 * i], y = v[2 * i + 1];
    v[2 * i] = x * c - y * s;
    v[2 * i + 1] = x * s + y * c;
  }
}

}  // namespace

extern const PositionKind kRotaryPositions{
    "rope",
    "RoPE",
    "queries and keys",
    false,
    nullptr,
    rotate,
    nullptr,
    "Su et al. 2021: each head turns q and k, pair by pair, by "
    "an angle proportional to the position; V is untouched"};

}  // namespace headwise::layers
