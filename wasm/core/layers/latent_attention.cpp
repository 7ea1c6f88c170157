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

// Sequence b of a forward pass, begun as both forms begin it: its x, and its latent c and RoPE key
// k_r (written into t's, at positions 0..T-1), with the queries' RoPE parts written to q_r.
struct Sequence {
  const float* x;
  float *c, *k_r;
};
Sequence begin_sequence(const LatentShape& s, const LatentParams& w, const float* x,
                        const LatentTensors& t, std::size_t b, float* q_r) {
  const std::size_t T = s.tokens;
  const Sequence q{x + b * T * s.d_model, t.c + b * T * s.kv_latent, t.k_r + b * T * s.rope_dim};
  latents(s, w, q.x, T, 0, q.c, q.k_r);
  rope_queries(s, w, q.x, T, 0, q_r);
  return q;
}

// Where head h of sequence b keeps its (T, T) softmax weights, or null when they are not kept.
float* attention_of(const LatentShape& s, const LatentTensors& t, std::size_t b, std::size_t h) {
  return t.attention ? t.attention + (b * s.heads + h) * s.tokens * s.tokens : nullptr;
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
    const Sequence seq = begin_sequence(s, w, x, t, b, q_r);
    matmul(T, C, D, seq.x, w.w_q, nullptr, q);
    matmul(T, C, dc, seq.c, w.w_uk, nullptr, k);  // the up-projections: every head's keys, values
    matmul(T, C, dc, seq.c, w.w_uv, nullptr, v);
    for (std::size_t h = 0; h < H; ++h) {
      const TwoPartQuery parts{q + h * dh,   C,      k + h * dh, C,  dh,
                               q_r + h * dr, H * dr, seq.k_r,    dr, dr};
      attend_two_part(T, T, 0, s.causal, score_scale(s), parts, v + h * dh, C, dh, scores,
                      attention_of(s, t, b, h), concat + h * dh, C);
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
    const Sequence seq = begin_sequence(s, w, x, t, b, q_r);
    matmul(T, H * dc, D, seq.x, a.w_q_uk, nullptr, q);
    for (std::size_t h = 0; h < H; ++h) {
      const TwoPartQuery parts{q + h * dc,   H * dc, seq.c,   dc, dc,
                               q_r + h * dr, H * dr, seq.k_r, dr, dr};
      attend_two_part(T, T, 0, s.causal, score_scale(s), parts, seq.c, dc, dc, scores,
                      attention_of(s, t, b, h), latent + h * dc, H * dc);
    }
    matmul(T, D, H * dc, latent, a.w_uv_out, nullptr, y + b * T * D);
  }
}

CheckedU64 latent_backward_floats(const LatentShape& s) {
  const std::uint64_t T = s.tokens, C = s.heads * s.head_dim;
  const std::uint64_t Hr = s.heads * s.rope_dim;
  // c, dc; k_r, dk_r; q, k, v, concat and their gradients; q_r, dq_r; dS.
  return CheckedU64(2) * T * s.kv_latent + CheckedU64(2) * T * s.rope_dim + CheckedU64(8) * T * C +
         CheckedU64(2) * T * Hr + CheckedU64(T) * T;
}

void latent_backward(const LatentShape& s, const LatentParams& w, const float* x,
                     const float* attention, const float* dy, const LatentGrads& g,
                     float* workspace, float* dx) {
  const std::size_t T = s.tokens, D = s.d_model, H = s.heads, dh = s.head_dim;
  const std::size_t dc = s.kv_latent, dr = s.rope_dim, C = H * dh, Hr = H * dr;
  float* c = workspace;
  float* d_c = c + T * dc;
  float* k_r = d_c + T * dc;
  float* dk_r = k_r + T * dr;
  float* q = dk_r + T * dr;
  float* k = q + T * C;
  float* v = k + T * C;
  float* concat = v + T * C;
  float* dq = concat + T * C;
  float* dk = dq + T * C;
  float* dv = dk + T * C;
  float* dconcat = dv + T * C;
  float* q_r = dconcat + T * C;
  float* dq_r = q_r + T * Hr;
  float* ds = dq_r + T * Hr;
  const float scale = score_scale(s);
  const PositionKind* rope = find_position_kind("rope");
  for (std::size_t b = 0; b < s.batch; ++b) {
    const bool acc = b > 0;  // weight gradients: the first sequence writes, the others add
    const float* xb = x + b * T * D;
    const float* dyb = dy + b * T * D;
    float* dxb = dx + b * T * D;
    // The forward's activations again: c, k_r and q_r rotated, q, k, v, concat = P v.
    latents(s, w, xb, T, 0, c, k_r);
    rope_queries(s, w, xb, T, 0, q_r);
    matmul(T, C, D, xb, w.w_q, nullptr, q);
    matmul(T, C, dc, c, w.w_uk, nullptr, k);
    matmul(T, C, dc, c, w.w_uv, nullptr, v);
    for (std::size_t h = 0; h < H; ++h)
      gemm_f32(Trans::kNo, Trans::kNo, T, dh, T, 1.0f, attention + (b * H + h) * T * T, T,
               v + h * dh, C, 0.0f, concat + h * dh, C);
    matmul_at_b(C, D, T, concat, dyb, g.w_out, acc);
    matmul_a_bt(T, C, D, dyb, w.w_out, dconcat);
    std::fill_n(dk_r, T * dr, 0.0f);
    for (std::size_t h = 0; h < H; ++h) {
      const float* p = attention + (b * H + h) * T * T;
      // dP = dctx v^T (in ds), dv = P^T dctx, dS = P (dP - rowsum(P dP)) scale.
      gemm_f32(Trans::kNo, Trans::kYes, T, T, dh, 1.0f, dconcat + h * dh, C, v + h * dh, C, 0.0f,
               ds, T);
      gemm_f32(Trans::kYes, Trans::kNo, T, dh, T, 1.0f, p, T, dconcat + h * dh, C, 0.0f,
               dv + h * dh, C);
      for (std::size_t i = 0; i < T; ++i) {
        const float* pi = p + i * T;
        float* di = ds + i * T;
        float weighted = 0.0f;
        for (std::size_t j = 0; j < T; ++j) weighted += pi[j] * di[j];
        for (std::size_t j = 0; j < T; ++j) di[j] = pi[j] * (di[j] - weighted) * scale;
      }
      gemm_f32(Trans::kNo, Trans::kNo, T, dh, T, 1.0f, ds, T, k + h * dh, C, 0.0f, dq + h * dh, C);
      gemm_f32(Trans::kYes, Trans::kNo, T, dh, T, 1.0f, ds, T, q + h * dh, C, 0.0f, dk + h * dh, C);
      if (dr > 0) {
        gemm_f32(Trans::kNo, Trans::kNo, T, dr, T, 1.0f, ds, T, k_r, dr, 0.0f, dq_r + h * dr, Hr);
        gemm_f32(Trans::kYes, Trans::kNo, T, dr, T, 1.0f, ds, T, q_r + h * dr, Hr, 1.0f, dk_r, dr);
      }
    }
    // Back through RoPE (a rotation: its transpose rotates back), then the projections.
    for (std::size_t i = 0; i < T && dr > 0; ++i) {
      rope->rotate(i, dr, dk_r + i * dr, true);
      for (std::size_t h = 0; h < H; ++h) rope->rotate(i, dr, dq_r + (i * H + h) * dr, true);
    }
    matmul_at_b(dc, C, T, c, dk, g.w_uk, acc);
    matmul_at_b(dc, C, T, c, dv, g.w_uv, acc);
    matmul_a_bt(T, dc, C, dk, w.w_uk, d_c);
    matmul_a_bt(T, dc, C, dv, w.w_uv, d_c, true);
    matmul_at_b(D, C, T, xb, dq, g.w_q, acc);
    matmul_at_b(D, dc, T, xb, d_c, g.w_dkv, acc);
    matmul_a_bt(T, D, C, dq, w.w_q, dxb);
    matmul_a_bt(T, D, dc, d_c, w.w_dkv, dxb, true);
    if (dr > 0) {
      matmul_at_b(D, Hr, T, xb, dq_r, g.w_qr, acc);
      matmul_at_b(D, dr, T, xb, dk_r, g.w_kr, acc);
      matmul_a_bt(T, D, Hr, dq_r, w.w_qr, dxb, true);
      matmul_a_bt(T, D, dr, dk_r, w.w_kr, dxb, true);
    }
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
