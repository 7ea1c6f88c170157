// Scaled dot-product attention for one head of one sequence: softmax(Q K^T / sqrt(hd) + mask) V.
#pragma once

#include <cstddef>

#include "simd_sizes.hpp"

namespace headwise {

// Heads at most this short and narrow (the lecture's toy, the many-heads sweep) run in a plain
// kernel without tiles: packing and tiling would cost more than the arithmetic.
constexpr std::size_t kShortTokens = 16;
constexpr std::size_t kShortHeadDim = 8;
inline bool is_short_head(std::size_t tokens, std::size_t head_dim) {
  return tokens <= kShortTokens && head_dim <= kShortHeadDim;
}

// Numerically stable softmax of row[0..n) in place (subtracts the row maximum before exp; scalar
// exp and a sequential sum). A row with no finite entry (all -infinity, i.e. fully masked)
// becomes all zeros.
void softmax_row_f32(float* row, std::size_t n);

// Working memory of attend_head_f32, linear in tokens; reused by every head.
struct HeadScratch {
  float* data;  // head_scratch_floats (simd_sizes.hpp)(tokens, head_dim) floats
};

// A per-head bias on the scaled scores (ALiBi): fn(head, heads, i, j) is added to the score of
// query position i on key position j. fn null: no bias.
struct ScoreBias {
  float (*fn)(std::size_t h, std::size_t heads, std::size_t i, std::size_t j);
  std::size_t head, heads;
};

// One head of one sequence. Queries sit at positions query_from..tokens-1 (all of them for a
// layer's forward, only the last for a classifier's last block); keys and values at 0..tokens-1.
// Rows of q, k and v are `ld` floats apart: head_dim for heads split out as (B, H, T, hd),
// heads x head_dim when they are read in place from the projections' (B*T, H*hd) rows. q and k
// arrive already rotated when the positions rotate them (RoPE).
struct HeadInputs {
  std::size_t tokens, query_from, head_dim;
  bool causal;
  const float* q;  // (tokens - query_from) rows
  const float* k;  // tokens rows
  const float* v;  // tokens rows
  std::size_t ld;
  ScoreBias bias;
  // Rows of k and v are kv_ld floats apart when it differs from ld (0: ld): K/V heads shared by
  // groups of query heads, read in place from (B*T, Hkv*hd) rows.
  std::size_t kv_ld = 0;
  std::size_t query_tokens() const { return tokens - query_from; }
  std::size_t kv_stride() const { return kv_ld ? kv_ld : ld; }
};

// The split heads' case: contiguous tokens x head_dim arrays, every position a query, no bias.
inline HeadInputs split_head(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                             const float* k, const float* v) {
  return {tokens, 0, head_dim, causal, q, k, v, head_dim, {nullptr, 0, 0}};
}

struct HeadOutputs {
  float* context;  // query_tokens x head_dim, rows context_stride apart
  std::size_t context_stride;
  float* scores;     // optional query_tokens x tokens, scaled scores (+ bias), masked -infinity
  float* attention;  // optional query_tokens x tokens, softmax of scores, masked entries 0
};

// softmax(q k^T / sqrt(hd) + bias + mask) v, the one attention of the inference layer (fused and
// loop) and the training layer. For split heads with nothing but the context asked for this is
// a tiled kernel with online softmax (running max and sum per query row, rescaled tile by tile)
// that skips key tiles above the causal diagonal and never holds more than one tile of scores.
// Otherwise (scores or attention asked for, a score bias, queries from a later position, rows
// read in place) it is the rows path: per block of query rows, the scores as one product, each
// row's softmax, the context as one product.
void attend_head_f32(const HeadInputs& in, HeadScratch scratch, HeadOutputs out);

// The three paths, exposed so tests and benchmarks can pin one (attend_head_f32 picks by `in`,
// `out` and size: rows as above, short for tokens <= 16 and head_dim <= 8, tiled otherwise).
void attend_head_tiled_f32(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                           const float* k, const float* v, HeadScratch scratch, float* context,
                           std::size_t context_stride);
void attend_head_short_f32(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                           const float* k, const float* v, float* context,
                           std::size_t context_stride);
void attend_head_rows_f32(const HeadInputs& in, HeadScratch scratch, HeadOutputs out);

}  // namespace headwise
