#include "latent_attention.hpp"

#include <algorithm>
#include <cmath>

#include "attention_head.hpp"
#include "gemm_f32.hpp"
#include "linalg.hpp"
#include "positions/position_kind.hpp"

namespace headwise::layers {

namespace {

// RoPE on `rows` rows of `heads` vectors of `dim`, row i at position first + i (the registry's
// rope kind: the one rotation of the core).
void rotate_rows(float* base, std::size_t rows, std::size_t heads, std::size_t dim,
                 std::size_t first) {
  if (dim == 0) return;
  const PositionKind* rope = find_position_kind("rope");
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t h = 0; h < heads; ++h)
      rope->rotate(first + i, dim, base + (i * heads + h) * dim, false);
}

// Scores of Tq queries (positions first..first+Tq-1) on keys 0..T-1 from two parts, content and
// RoPE: (a1 b1^T + a2 b2^T) * scale; each row's causal softmax in place; then ctx = P v.
struct TwoPartQuery {
  const float* a1;
  std::size_t lda1;
  const float* b1;
  std::size_t ldb1, k1;
  const float* a2;
  std::size_t lda2;
  const float* b2;
  std::size_t ldb2, k2;
};
void attend_two_part(std::size_t Tq, std::size_t T, std::size_t first, bool causal, float scale,
                     const TwoPartQuery& q, const float* v, std::size_t ldv, std::size_t dv,
                     float* scores, float* attention, float* ctx, std::size_t ldc) {
  gemm_f32(Trans::kNo, Trans::kYes, Tq, T, q.k1, scale, q.a1, q.lda1, q.b1, q.ldb1, 0.0f, scores,
           T);
  if (q.k2 > 0)
    gemm_f32(Trans::kNo, Trans::kYes, Tq, T, q.k2, scale, q.a2, q.lda2, q.b2, q.ldb2, 1.0f, scores,
             T);
  for (std::size_t i = 0; i < Tq; ++i) {
    float* row = scores + i * T;
    const std::size_t visible = causal ? std::min(T, first + i + 1) : T;
    softmax_row_f32(row, visible);
    std::fill(row + visible, row + T, 0.0f);
    if (attention) std::copy(row, row + T, attention + i * T);
  }
  gemm_f32(Trans::kNo, Trans::kNo, Tq, dv, T, 1.0f, scores, T, v, ldv, 0.0f, ctx, ldc);
}

float score_scale(const LatentShape& s) {
  return 1.0f / std::sqrt(static_cast<float>(s.head_dim + s.rope_dim));
}

// c = x W_dkv and k_r = RoPE(x W_kr) for rows at positions first.., and the queries' RoPE part.
void latents(const LatentShape& s, const LatentParams& w, const float* x, std::size_t rows,
             std::size_t first, float* c, float* k_r) {
  matmul(rows, s.kv_latent, s.d_model, x, w.w_dkv, nullptr, c);
  if (s.rope_dim == 0) return;
  matmul(rows, s.rope_dim, s.d_model, x, w.w_kr, nullptr, k_r);
  rotate_rows(k_r, rows, 1, s.rope_dim, first);
}
void rope_queries(const LatentShape& s, const LatentParams& w, const float* x, std::size_t rows,
                  std::size_t first, float* q_r) {
  if (s.rope_dim == 0) return;
  matmul(rows, s.heads * s.rope_dim, s.d_model, x, w.w_qr, nullptr, q_r);
  rotate_rows(q_r, rows, s.heads, s.rope_dim, first);
}

}  // namespace

CheckedU64 latent_absorbed_floats(const LatentShape& s) {
  return CheckedU64(2) * s.d_model * s.heads * s.kv_latent;
}

void absorb_latent_weights(const LatentShape& s, const LatentParams& w, const LatentAbsorbed& a) {
  const std::size_t D = s.d_model, H = s.heads, dh = s.head_dim, dc = s.kv_latent;
  for (std::size_t h = 0; h < H; ++h) {
    // W_q[h] (D, dh) W_uk[h]^T (dh, dc), and W_uv[h] (dc, dh) W_out[h] (dh, D).
    gemm_f32(Trans::kNo, Trans::kYes, D, dc, dh, 1.0f, w.w_q + h * dh, H * dh, w.w_uk + h * dh,
             H * dh, 0.0f, a.w_q_uk + h * dc, H * dc);
    gemm_f32(Trans::kNo, Trans::kNo, dc, D, dh, 1.0f, w.w_uv + h * dh, H * dh, w.w_out + h * dh * D,
             D, 0.0f, a.w_uv_out + h * dc * D, D);
  }
}

CheckedU64 latent_workspace_floats(const LatentShape& s, bool absorbed) {
  const std::uint64_t T = s.tokens, H = s.heads;
  const CheckedU64 scores = CheckedU64(T) * T, q_r = CheckedU64(T) * H * s.rope_dim;
  if (absorbed) return CheckedU64(2) * T * H * s.kv_latent + q_r + scores;  // q_uk, latents
  return CheckedU64(4) * T * H * s.head_dim + q_r + scores;                 // q, k, v, concat
}

void latent_forward_explicit(const LatentShape& s, const LatentParams& w, const float* x,
                             const LatentTensors& t, float* y) {
  const std::size_t T = s.tokens, D = s.d_model, H = s.heads, dh = s.head_dim;
  const std::size_t dc = s.kv_latent, dr = s.rope_dim, C = H * dh;
  float* q = t.workspace;
  float* k = q + T * C;
  float* v = k + T * C;
  float* concat = v + T * C;
  float* q_r = concat + T * C;
  float* scores = q_r + T * H * dr;
  for (std::size_t b = 0; b < s.batch; ++b) {
    const float* xb = x + b * T * D;
    float* c = t.c + b * T * dc;
    float* k_r = t.k_r + b * T * dr;
    latents(s, w, xb, T, 0, c, k_r);
    rope_queries(s, w, xb, T, 0, q_r);
    matmul(T, C, D, xb, w.w_q, nullptr, q);
    matmul(T, C, dc, c, w.w_uk, nullptr, k);  // the up-projections: every head's keys, values
    matmul(T, C, dc, c, w.w_uv, nullptr, v);
    for (std::size_t h = 0; h < H; ++h) {
      const TwoPartQuery parts{q + h * dh, C, k + h * dh, C, dh, q_r + h * dr, H * dr, k_r, dr, dr};
      attend_two_part(T, T, 0, s.causal, score_scale(s), parts, v + h * dh, C, dh, scores,
                      t.attention ? t.attention + (b * H + h) * T * T : nullptr, concat + h * dh,
                      C);
    }
    matmul(T, D, C, concat, w.w_out, nullptr, y + b * T * D);
  }
}

void latent_forward_absorbed(const LatentShape& s, const LatentParams& w, const LatentAbsorbed& a,
                             const float* x, const LatentTensors& t, float* y) {
  const std::size_t T = s.tokens, D = s.d_model, H = s.heads, dc = s.kv_latent, dr = s.rope_dim;
  float* q = t.workspace;          // (T, H*dc): the queries with W_uk folded in
  float* latent = q + T * H * dc;  // (T, H*dc): each head's softmax-weighted latents
  float* q_r = latent + T * H * dc;
  float* scores = q_r + T * H * dr;
  for (std::size_t b = 0; b < s.batch; ++b) {
    const float* xb = x + b * T * D;
    float* c = t.c + b * T * dc;
    float* k_r = t.k_r + b * T * dr;
    latents(s, w, xb, T, 0, c, k_r);
    rope_queries(s, w, xb, T, 0, q_r);
    matmul(T, H * dc, D, xb, a.w_q_uk, nullptr, q);
    for (std::size_t h = 0; h < H; ++h) {
      const TwoPartQuery parts{q + h * dc, H * dc, c, dc, dc, q_r + h * dr, H * dr, k_r, dr, dr};
      attend_two_part(T, T, 0, s.causal, score_scale(s), parts, c, dc, dc, scores,
                      t.attention ? t.attention + (b * H + h) * T * T : nullptr, latent + h * dc,
                      H * dc);
    }
    matmul(T, D, H * dc, latent, a.w_uv_out, nullptr, y + b * T * D);
  }
}

CheckedU64 latent_decode_floats(const LatentShape& s, std::size_t capacity) {
  return CheckedU64(2) * s.heads * s.kv_latent + CheckedU64(s.heads) * s.rope_dim + capacity;
}

void latent_decode_step(const LatentShape& s, const LatentParams& w, const LatentAbsorbed& a,
                        LatentCacheView* cache, const float* x, float* workspace, float* y) {
  const std::size_t D = s.d_model, H = s.heads, dc = s.kv_latent, dr = s.rope_dim;
  const std::size_t pos = cache->length, keys = pos + 1;
  float* q = workspace;
  float* latent = q + H * dc;
  float* q_r = latent + H * dc;
  float* scores = q_r + H * dr;
  for (std::size_t b = 0; b < s.batch; ++b) {
    const float* xb = x + b * D;
    float* c = cache->c + b * cache->capacity * dc;
    float* k_r = cache->k_r + b * cache->capacity * dr;
    latents(s, w, xb, 1, pos, c + pos * dc, k_r + pos * dr);  // appended to the cache
    rope_queries(s, w, xb, 1, pos, q_r);
    matmul(1, H * dc, D, xb, a.w_q_uk, nullptr, q);
    for (std::size_t h = 0; h < H; ++h) {
      const TwoPartQuery parts{q + h * dc, H * dc, c, dc, dc, q_r + h * dr, H * dr, k_r, dr, dr};
      attend_two_part(1, keys, pos, true, score_scale(s), parts, c, dc, dc, scores, nullptr,
                      latent + h * dc, H * dc);
    }
    matmul(1, D, H * dc, latent, a.w_uv_out, nullptr, y + b * D);
  }
  cache->length = pos + 1;
}

}  // namespace headwise::layers
