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

// Numerically stable softmax of row[0..n) in place (subtracts the row maximum before exp).
// A row with no finite entry (all -infinity, i.e. fully masked) becomes all zeros.
void softmax_row_f32(float* row, std::size_t n);

// Working memory of attend_head_f32, linear in tokens; reused by every head.
struct HeadScratch {
  float* data;  // head_scratch_floats (simd_sizes.hpp)(tokens, head_dim) floats
};

struct HeadOutputs {
  float* context;  // tokens x head_dim, rows context_stride apart
  std::size_t context_stride;
  float* scores;     // optional tokens x tokens, scaled scores, masked entries -infinity
  float* attention;  // optional tokens x tokens, softmax of scores, masked entries 0
};

// q, k, v: tokens x head_dim, contiguous. Without scores/attention this is a tiled kernel with
// online softmax (running max and sum per query row, rescaled tile by tile) that skips key tiles
// above the causal diagonal and never holds more than one tile of scores. With either of them it
// computes each full score row, writes it out, and applies softmax to it.
void attend_head_f32(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                     const float* k, const float* v, HeadScratch scratch, HeadOutputs out);

// The three paths, exposed so tests and benchmarks can pin one (attend_head_f32 picks by `out`
// and size: rows when scores or attention are asked for, short for tokens <= 16 and
// head_dim <= 8, tiled otherwise).
void attend_head_tiled_f32(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                           const float* k, const float* v, HeadScratch scratch, float* context,
                           std::size_t context_stride);
void attend_head_short_f32(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                           const float* k, const float* v, float* context,
                           std::size_t context_stride);
void attend_head_rows_f32(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                          const float* k, const float* v, HeadScratch scratch, HeadOutputs out);

}  // namespace headwise
