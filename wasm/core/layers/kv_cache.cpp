#include "kv_cache.hpp"

#include <cmath>

#include "linalg.hpp"
#include "positions/position_kind.hpp"

namespace headwise::layers {

CheckedU64 kv_cache_floats(const AttentionShape& s, std::size_t capacity) {
  return CheckedU64(2) * s.batch * capacity * s.kv() * s.head_dim;
}

CheckedU64 decode_floats(const AttentionShape& s) {
  return CheckedU64(2) * s.batch * s.d_model + CheckedU64(2) * s.batch * s.heads * s.head_dim;
}

void decode_step(const AttentionShape& s, const AttentionParams& w, KvCacheView* cache,
                 const DecodeTensors& t) {
  const std::size_t B = s.batch, D = s.d_model, H = s.heads, hd = s.head_dim;
  const std::size_t C = s.concat(), Ckv = s.kv_concat(), pos = cache->length;
  const std::size_t seq = cache->capacity * Ckv;  // one sequence's cached rows
  // The new position's key and value go straight into their cache rows.
  for (std::size_t b = 0; b < B; ++b) {
    matmul(1, Ckv, D, t.x + b * D, w.wk, w.bk, cache->k + b * seq + pos * Ckv);
    matmul(1, Ckv, D, t.x + b * D, w.wv, w.bv, cache->v + b * seq + pos * Ckv);
  }
  matmul(B, C, D, t.x, w.wq, w.bq, t.q);
  if (s.position && s.position->rotate) {
    for (std::size_t b = 0; b < B; ++b) {
      for (std::size_t h = 0; h < H; ++h) s.position->rotate(pos, hd, t.q + b * C + h * hd, false);
      for (std::size_t g = 0; g < s.kv(); ++g)
        s.position->rotate(pos, hd, cache->k + b * seq + pos * Ckv + g * hd, false);
    }
  }
  const auto bias = s.position ? s.position->score_bias : nullptr;
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t kv = b * seq + s.kv_head_of(h) * hd;
      const HeadInputs in{pos + 1,
                          pos,
                          hd,
                          true,
                          t.q + b * C + h * hd,
                          cache->k + kv,
                          cache->v + kv,
                          C,
                          {bias, s.head_offset + h, s.all_heads()},
                          Ckv};
      attend_head_f32(in, t.scratch, {t.concat + b * C + h * hd, C, nullptr, nullptr});
    }
  }
  if (s.zero_heads) {
    for (std::size_t h = 0; h < H; ++h)
      if (s.zero_heads[h])
        for (std::size_t b = 0; b < B; ++b) std::fill_n(t.concat + b * C + h * hd, hd, 0.0f);
  }
  matmul(B, D, C, t.concat, w.wout, w.bout, t.y);
  cache->length = pos + 1;
}

}  // namespace headwise::layers
