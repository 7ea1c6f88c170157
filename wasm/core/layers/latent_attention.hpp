// Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434 section 2.1): keys and values of
// every head come from one latent of kv_latent (d_c) numbers per position, and a decoupled RoPE
// key of rope_dim (d_r) numbers is shared by every head, so a cache holds d_c + d_r numbers per
// position (multi-head: 2 x H x d_h). Without DeepSeek-V2's compression of the queries.
//   c    = x W_dkv                          (B*T, d_c)   the latent, cached
//   k_r  = RoPE(x W_kr)                     (B*T, d_r)   shared by the heads, cached
//   q_h  = x W_q[h],  q_r,h = RoPE(x W_qr[h])            per head, d_h and d_r wide
//   k_h  = c W_uk[h], v_h = c W_uv[h]                    per head, d_h wide (up-projections)
//   score_h(i, j) = (q_h(i) . k_h(j) + q_r,h(i) . k_r(j)) / sqrt(d_h + d_r), causal
//   y    = concat_h(softmax(score_h) v_h) W_out
// The explicit form computes k_h and v_h; the absorbed form never does: W_uk[h] is folded into
// the query (q_h W_uk[h]^T, d_c wide, scored against c itself) and W_uv[h] into W_out (W_uv[h]
// W_out[h], applied to the heads' softmax-weighted latents), so attention reads the cache as it
// is, one key and value of d_c + d_r shared by all heads (multi-query attention on the latent).
// The two are the same function; in float32 they agree within rounding (latent_attention_test).
#pragma once

#include <cstddef>

#include "checked_u64.hpp"

namespace headwise::layers {

struct LatentShape {
  std::size_t batch, tokens, d_model, heads, head_dim, kv_latent, rope_dim;
  bool causal;
};

// Weights, (in, out) row-major: w_dkv (D, d_c), w_uk and w_uv (d_c, H*d_h), w_q (D, H*d_h),
// w_qr (D, H*d_r), w_kr (D, d_r), w_out (H*d_h, D).
struct LatentParams {
  const float *w_dkv, *w_uk, *w_uv, *w_q, *w_qr, *w_kr, *w_out;
};

// The absorbed weights: w_q_uk (D, H*d_c) = per head W_q[h] W_uk[h]^T; w_uv_out (H*d_c, D) = per
// head W_uv[h] W_out[h].
struct LatentAbsorbed {
  float *w_q_uk, *w_uv_out;
};
CheckedU64 latent_absorbed_floats(const LatentShape& s);
void absorb_latent_weights(const LatentShape& s, const LatentParams& w, const LatentAbsorbed& a);

// Working memory of either form, for `tokens` positions (floats).
CheckedU64 latent_workspace_floats(const LatentShape& s, bool absorbed);

// x (B, T, D) -> y (B, T, D). c and k_r (B*T, d_c), (B*T, d_r) are written (what a cache holds);
// attention (B, H, T, T), if not null, gets the softmax weights.
struct LatentTensors {
  float* c;
  float* k_r;
  float* attention;
  float* workspace;  // latent_workspace_floats
};
void latent_forward_explicit(const LatentShape& s, const LatentParams& w, const float* x,
                             const LatentTensors& t, float* y);
void latent_forward_absorbed(const LatentShape& s, const LatentParams& w, const LatentAbsorbed& a,
                             const float* x, const LatentTensors& t, float* y);

// The backward of the explicit form, after a forward that kept `attention` (B, H, T, T): from dy
// (B, T, D), every weight's gradient (overwritten) and dx (B, T, D, overwritten). The other
// activations are recomputed per sequence from x.
struct LatentGrads {
  float *w_dkv, *w_uk, *w_uv, *w_q, *w_qr, *w_kr, *w_out;
};
CheckedU64 latent_backward_floats(const LatentShape& s);
void latent_backward(const LatentShape& s, const LatentParams& w, const float* x,
                     const float* attention, const float* dy, const LatentGrads& g,
                     float* workspace, float* dx);

// Decoding with the latent cache: one position per sequence at *length (< capacity), c and k_r
// appended to the caches (B, capacity, d_c) and (B, capacity, d_r), absorbed attention over them.
struct LatentCacheView {
  float *c, *k_r;
  std::size_t capacity, length;
};
CheckedU64 latent_decode_floats(const LatentShape& s, std::size_t capacity);
void latent_decode_step(const LatentShape& s, const LatentParams& w, const LatentAbsorbed& a,
                        LatentCacheView* cache, const float* x, float* workspace, float* y);

}  // namespace headwise::layers
