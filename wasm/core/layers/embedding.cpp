#include "embedding.hpp"

#include <algorithm>

namespace headwise::layers {

void embedding_forward(const EmbeddingShape& s, const int* ids, const float* tokens,
                       const float* positions, float* x0) {
  const std::size_t D = s.d_model;
  for (std::size_t r = 0; r < s.rows; ++r) {
    const float* e = tokens + static_cast<std::size_t>(ids[r]) * D;
    float* x = x0 + r * D;
    const std::size_t t = r % s.tokens;
    if (positions) {
      const float* p = positions + t * D;
      for (std::size_t d = 0; d < D; ++d) x[d] = e[d] + p[d];
    } else {
      std::copy_n(e, D, x);
      if (s.position && s.position->add_to_input) s.position->add_to_input(t, D, x);
    }
  }
}

void fill_position_table(const EmbeddingShape& s, float* table) {
  std::fill_n(table, s.tokens * s.d_model, 0.0f);
  if (!s.position || !s.position->add_to_input) return;
  for (std::size_t t = 0; t < s.tokens; ++t)
    s.position->add_to_input(t, s.d_model, table + t * s.d_model);
}

void add_position_table(const EmbeddingShape& s, const float* table, const float* x, float* out) {
  const std::size_t n = s.tokens * s.d_model;
  for (std::size_t r = 0; r < s.rows; r += s.tokens)
    for (std::size_t i = 0; i < n; ++i) out[r * s.d_model + i] = x[r * s.d_model + i] + table[i];
}

void embedding_backward(const EmbeddingShape& s, std::size_t vocab, const int* ids,
                        const float* dx0, float* d_tokens, float* d_positions) {
  const std::size_t D = s.d_model;
  std::fill_n(d_tokens, vocab * D, 0.0f);
  if (d_positions) std::fill_n(d_positions, s.tokens * D, 0.0f);
  for (std::size_t r = 0; r < s.rows; ++r) {
    const float* dx = dx0 + r * D;
    float* e = d_tokens + static_cast<std::size_t>(ids[r]) * D;
    if (d_positions) {
      float* p = d_positions + (r % s.tokens) * D;
      for (std::size_t d = 0; d < D; ++d) e[d] += dx[d], p[d] += dx[d];
    } else {
      for (std::size_t d = 0; d < D; ++d) e[d] += dx[d];
    }
  }
}

}  // namespace headwise::layers
