#include "position_steps.hpp"

#include <algorithm>
#include <cmath>

#include "layers/positions/position_kind.hpp"

namespace headwise {

void fill_input_positions(const Dims& d, float* positions) {
  std::fill_n(positions, d.tokens * d.d_model, 0.0f);
  if (!d.position || !d.position->add_to_input) return;
  for (std::size_t t = 0; t < d.tokens; ++t)
    d.position->add_to_input(t, d.d_model, positions + t * d.d_model);
}

void add_input_positions(const Dims& d, const float* positions, const float* x, float* out) {
  const std::size_t n = d.tokens * d.d_model;
  for (std::size_t b = 0; b < d.batch; ++b)
    for (std::size_t i = 0; i < n; ++i) out[b * n + i] = x[b * n + i] + positions[i];
}

void rotate_heads(const Dims& d, float* heads) {
  for (std::size_t bh = 0; bh < d.batch * d.heads; ++bh)
    for (std::size_t t = 0; t < d.tokens; ++t)
      d.position->rotate(t, d.head_dim, heads + (bh * d.tokens + t) * d.head_dim, false);
}

void fill_score_bias(const Dims& d, float* bias) {
  const std::size_t T = d.tokens;
  for (std::size_t h = 0; h < d.heads; ++h)
    for (std::size_t i = 0; i < T; ++i)
      for (std::size_t j = 0; j < T; ++j)
        bias[(h * T + i) * T + j] = d.position->score_bias(d.head_offset + h, d.total_heads, i, j);
}

}  // namespace headwise
