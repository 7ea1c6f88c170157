// Multi-head self-attention for training: forward with its tape, and backward (causal or
// bidirectional, biases optional, positions entering through their PositionKind's hooks).
// Shapes: x (B, T, D) in; queries only at positions qf..T-1 (Tq = T - qf of them: all for an
// inner block, the read position for the last block of a classifier); y (B, Tq, D) out:
//   y = concat_h(softmax(q_h k_h^T / sqrt(hd) + bias_h + mask) v_h) W_out + b_out
// with q = x[q rows] Wq + bq, k = x Wk + bk, v = x Wv + bv, q and k rotated where the kind says.
//
// The tape keeps q, k, v (rotated), the attention weights P (B, H, Tq, T) and concat (B, Tq, C).
// Saving P rather than a log-sum-exp per query row and rebuilding P in backward: the models
// trained here have T <= 64, P is small, and rebuilding it would redo the T x T x hd score
// products and the exps on every backward.
#pragma once

#include <cstddef>

#include "positions/position_kind.hpp"

namespace headwise::layers {

struct AttentionShape {
  std::size_t batch, tokens, d_model, heads, head_dim;
  std::size_t query_from;  // qf: the first position that gets a query (0: all)
  bool causal;
  const PositionKind* position;  // may be null (none)
  // Ablation: per head, nonzero = its context is zeroed before W_out (null: none). Forward only.
  const unsigned char* zero_heads = nullptr;
  std::size_t concat() const { return heads * head_dim; }
  std::size_t query_tokens() const { return tokens - query_from; }
};

// Biases may be null (a layer without biases); then their gradients are not written.
struct AttentionParams {
  const float *wq, *bq, *wk, *bk, *wv, *bv, *wout, *bout;
};
struct AttentionGrads {
  float *wq, *bq, *wk, *bk, *wv, *bv, *wout, *bout;
};

// Every array the forward fills for the backward, sized from the shape (rows in comments).
struct AttentionTape {
  float* xq;      // (B*Tq, D): the query rows of x, gathered; unused when query_from == 0
  float* q;       // (B*Tq, C)
  float* k;       // (B*T, C)
  float* v;       // (B*T, C)
  float* p;       // (B, H, Tq, T): row i holds the weights of query qf + i over keys 0..T-1
  float* concat;  // (B*Tq, C)
};

// The backward's working memory.
struct AttentionScratch {
  float* dconcat;  // (B*Tq, C)
  float* dq;       // (B*Tq, C)
  float* dk;       // (B*T, C)
  float* dv;       // (B*T, C)
  float* scores;   // (Tq, T): one (sequence, head) block of dP, then dS
};

// The rows of x that get queries: x itself when query_from == 0, else tape.xq after gathering.
const float* query_rows(const AttentionShape& s, const float* x, const AttentionTape& tape);

// The scores, softmax and context of each (sequence, head) are the inference layer's
// attend_head_f32 (attention_head.hpp), on q, k, v in place.
void attention_forward(const AttentionShape& s, const AttentionParams& w, const float* x,
                       const AttentionTape& tape, float* y);

// From dy (B*Tq, D): parameter gradients (overwritten); dx (B*T, D) overwritten with the key
// and value paths' gradient; the query path's gradient (B*Tq, D) is ADDED to dx_query, so a
// caller can start it from a residual's gradient.
void attention_backward(const AttentionShape& s, const AttentionParams& w, const float* x,
                        const AttentionTape& tape, const float* dy, const AttentionGrads& g,
                        const AttentionScratch& scratch, float* dx, float* dx_query);

}  // namespace headwise::layers
