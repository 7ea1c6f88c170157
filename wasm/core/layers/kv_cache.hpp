// Causal decoding with a KV cache: one new position per sequence, its key and value appended to
// the cache, its query attending to every cached position. N steps give the causal forward pass
// of the N positions (layers/attention.hpp) without projecting the earlier positions again. The
// attention of the step is the operator's own kernel (attend_head_f32, queries from the last
// position), with the same position hooks: RoPE rotates the step's q and new k at its position,
// ALiBi biases its scores; positions added to x are the caller's (the input layer's).
// Grouped-query and multi-query attention cache kv_heads heads: 2 x Hkv x hd numbers per position
// per sequence (multi-head: 2 x H x hd).
#pragma once

#include <cstddef>

#include "attention.hpp"
#include "checked_u64.hpp"

namespace headwise::layers {

// K and V, each (B, capacity, Ckv); `length` positions of each sequence are filled.
struct KvCacheView {
  float *k, *v;
  std::size_t capacity, length;
};

// The step's working memory (B = shape.batch).
struct DecodeTensors {
  const float* x;       // (B, D): the new position of each sequence (positions already added)
  float* q;             // (B, C)
  float* concat;        // (B, C)
  float* y;             // (B, D): the output at the new position
  HeadScratch scratch;  // head_scratch_floats(capacity, hd) (a layer's own serves)
};

// Floats of K and V for `capacity` positions; of the step's x, q, concat and y (decode_floats).
CheckedU64 kv_cache_floats(const AttentionShape& s, std::size_t capacity);
CheckedU64 decode_floats(const AttentionShape& s);

// One step at position cache->length (< capacity), which it then increments. s.tokens and
// s.query_from are not read.
void decode_step(const AttentionShape& s, const AttentionParams& w, KvCacheView* cache,
                 const DecodeTensors& t);

}  // namespace headwise::layers
