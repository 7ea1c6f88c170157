// How much a KV cache holds per token, from a model's attention shape, without allocating: the
// numbers the lecture compares (multi-head, grouped-query, multi-query, latent) and the published
// configurations it compares them on (docs/kv.md cites each).
#pragma once

#include <cstddef>
#include <cstdint>

#include "status.hpp"

namespace headwise {

struct CacheShape {
  double layers = 1, heads = 1;
  double kv_heads = 0;  // 0: heads
  double head_dim = 64;
  double kv_latent = 0;  // > 0: multi-head latent attention, caching the latent and the RoPE key
  double rope_dim = 0;   // latent attention's decoupled RoPE key, shared by every head
  double tokens = 1;     // positions of one sequence
  double bytes_per_number = 2;  // fp16
};

struct CacheSizes {
  // Numbers one layer caches per token: 2 x kvHeads x headDim (K and V), or kvLatent + ropeDim.
  std::uint64_t numbers_per_token_per_layer;
  // The same model with every head keeping its own K and V: 2 x heads x headDim.
  std::uint64_t mha_numbers_per_token_per_layer;
  double bytes_per_token, mha_bytes_per_token, bytes_per_sequence;
};

// Checks the shape (whole, positive, kvHeads dividing heads, no latent narrower than 1) and
// computes its sizes; refusals in words.
Status cache_sizes(const CacheShape& shape, CacheSizes* out);

struct CachePreset {
  const char* name;
  const char* label;
  CacheShape shape;
  const char* source;  // the configuration's paper or model card (docs/kv.md)
};
const CachePreset* cache_presets();  // ends with a row whose name is null
const CachePreset* find_cache_preset(const char* name);

}  // namespace headwise
