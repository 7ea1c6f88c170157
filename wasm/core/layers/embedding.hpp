// The input layer: x0 (B*T, D) = tokenEmbedding[w] (+ positionEmbedding[t], or + PE(t) for a
// fixed encoding), the one place positions entering at the input are added. Backward
// scatter-adds d x0 into the tables' gradients.
#pragma once

#include <cstddef>

#include "positions/position_kind.hpp"

namespace headwise::layers {

struct EmbeddingShape {
  std::size_t rows, tokens, d_model;  // rows = B * T; position of row r is r % tokens
  const PositionKind* position;       // may be null (none)
};

// positions: the (T, D) table, or null unless the kind has a learned table.
void embedding_forward(const EmbeddingShape& s, const int* ids, const float* tokens,
                       const float* positions, float* x0);

// A layer fed vectors rather than token ids (the explorer's) takes its positions as a (T, D)
// table added row by row: fill_position_table writes the fixed encoding's rows (zeros for a kind
// that adds none; a learned table is seeded instead), add_position_table adds it:
// out (rows, D) = x + table[r % tokens].
void fill_position_table(const EmbeddingShape& s, float* table);
void add_position_table(const EmbeddingShape& s, const float* table, const float* x, float* out);

// Overwrites d_tokens (V, D) and d_positions (T, D, if not null) with the gradients from dx0.
void embedding_backward(const EmbeddingShape& s, std::size_t vocab, const int* ids,
                        const float* dx0, float* d_tokens, float* d_positions);

}  // namespace headwise::layers
