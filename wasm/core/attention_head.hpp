// Scaled dot-product attention for one head of one sequence: softmax(Q K^T / sqrt(hd) + mask) V.
#pragma once

#include <cstddef>

namespace headwise {

// Numerically stable softmax of row[0..n) in place (subtracts the row maximum before exp).
void softmax_row_f32(float* row, std::size_t n);

struct HeadScratch {
  float* k_transposed;  // head_dim * tokens floats
  float* score_row;     // tokens floats
};

struct HeadOutputs {
  float* context;              // tokens x head_dim, rows context_stride apart
  std::size_t context_stride;
  float* scores;     // optional tokens x tokens, scaled scores, masked entries -infinity
  float* attention;  // optional tokens x tokens, softmax of scores, masked entries 0
};

// q, k, v: tokens x head_dim, contiguous. Memory beyond the outputs is linear in tokens.
void attend_head_f32(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                     const float* k, const float* v, HeadScratch scratch, HeadOutputs out);

}  // namespace headwise
