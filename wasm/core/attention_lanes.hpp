// Attention for many short heads at once: one (batch, head) pair per SIMD lane. In the lecture's
// sweep (up to 4000 heads of T = 6, hd = 3) a head is too small to fill a vector on its own, and
// one scalar exp per score is most of its cost; side by side, each vector exp serves kWidth heads.
#pragma once

#include <cstddef>

namespace headwise {

// pairs heads of tokens x head_dim each, q, k, v and context contiguous per pair ((pairs, T, hd),
// as split_heads lays them out). Only for short heads (is_short_head in attention_head.hpp); pairs
// left over after the last whole group of lanes run one by one in attend_head_short_f32.
void attend_short_heads_f32(std::size_t pairs, std::size_t tokens, std::size_t head_dim,
                            bool causal, const float* q, const float* k, const float* v,
                            float* context);

}  // namespace headwise
