// Training forward and backward of one multi-head self-attention layer (causal or not, biases
// optional). Shapes: x, y (B, T, D); Wq, Wk, Wv (D, C) and W_out (C, D) with C = H * hd;
// y = concat_h(softmax(q_h k_h^T / sqrt(hd) + mask) v_h) W_out + b_out.
//
// Forward saves q, k, v (B, T, C), the attention weights P (B, H, T, T) and concat (B, T, C).
// Saving P rather than a log-sum-exp per query row and rebuilding P in backward: the models
// trained here have T = 12, so P is 144 floats per head, and rebuilding it would redo the
// T x T x hd score products and T x T exps on every backward for no memory worth saving.
#pragma once

#include <cstddef>
#include <vector>

namespace headwise {

struct AttentionShape {
  std::size_t batch, tokens, d_model, heads, head_dim;
  bool causal;
  std::size_t concat() const { return heads * head_dim; }
};

// Biases may be null (a layer without biases); then their gradients are not written.
struct AttentionParams {
  const float *wq, *wk, *wv, *wout, *bq, *bk, *bv, *bout;
};
struct AttentionGrads {
  float *wq, *wk, *wv, *wout, *bq, *bk, *bv, *bout;
};

struct AttentionSaved {
  std::vector<float> q, k, v, p, concat;
};

// y (B, T, D) from x; fills saved for attention_backward.
void attention_forward_train(const AttentionShape& s, const AttentionParams& w, const float* x,
                             float* y, AttentionSaved* saved);

// From dy (B, T, D): parameter gradients (overwritten) and dx (B, T, D, overwritten).
void attention_backward(const AttentionShape& s, const AttentionParams& w, const float* x,
                        const AttentionSaved& saved, const float* dy, const AttentionGrads& g,
                        float* dx);

// One (query, head) row: softmax over the keys 0..last of scale * q.k_j, written to p[0..last].
void attention_row_softmax(const float* q, const float* k, std::size_t key_stride,
                           std::size_t head_dim, std::size_t last, float scale, float* p);

// Backward of one (query, head) row given P (keys 0..last) and d(context) for that row:
// accumulates into dq (head_dim), dk and dv (key rows with key_stride).
void attention_row_backward(const float* q, const float* k, const float* v, std::size_t key_stride,
                            std::size_t head_dim, std::size_t last, float scale, const float* p,
                            const float* dctx, float* dq, float* dk, float* dv, float* scratch);

}  // namespace headwise
