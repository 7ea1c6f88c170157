// Multi-head attention, the one operator of the core: the explorer's layer (model.hpp) and every
// block of the trainer's stack (stack.hpp) run it. Its forward is five named stages, as the
// lecture names them, each of which can run alone:
//   project      q = x[q rows] Wq + bq, k = x Wk + bk, v = x Wv + bv        (B*Tq | B*T, C)
//   split        heads out of the rows (copied to (B, H, T, hd) when asked), q and k rotated
//   attend       per (sequence, head): softmax(q_h k_h^T / sqrt(hd) + bias_h + mask) v_h
//   merge        the heads' contexts side by side in concat                  (B*Tq, C)
//   out-project  y = concat W_out + b_out                                    (B*Tq, D)
// Shapes: x (B, T, D) in; queries only at positions qf..T-1 (Tq = T - qf: all for the explorer's
// layer and an inner block, the read position for the last block of a classifier).
// Word order's hooks (layers/positions) that act inside attention apply here and nowhere else:
// RoPE's rotation in split (and its inverse in backward), ALiBi's score bias in attend. Positions
// added to the input are the input layer's (embedding.hpp).
// A per-head mask on the heads' contexts (ablating a head) belongs in merge: after it, zero the
// masked heads' hd columns of concat (heads in place have written them there already), and in the
// backward the same columns of dconcat.
//
// The backward keeps q, k, v (rotated), the attention weights P (B, H, Tq, T) and concat.
// Saving P rather than a log-sum-exp per query row and rebuilding P in backward: the models
// trained here have T <= 64, P is small, and rebuilding it would redo the T x T x hd score
// products and the exps on every backward.
#pragma once

#include <cstddef>

#include "attention_head.hpp"
#include "attention_shape.hpp"
#include "positions/position_kind.hpp"

namespace headwise::layers {

// Biases may be null (a layer without biases); then their gradients are not written.
struct AttentionParams {
  const float *wq, *bq, *wk, *bk, *wv, *bv, *wout, *bout;
};
struct AttentionGrads {
  float *wq, *bq, *wk, *bk, *wv, *bv, *wout, *bout;
};

// Where a forward pass's tensors live (rows in comments; Ckv = kv_concat(), Hkv = kv()). q, k, v
// and concat are always needed.
struct AttentionTensors {
  float* xq;  // (B*Tq, D): the query rows of x, gathered; unused when query_from == 0
  float* q;   // (B*Tq, C)
  float* k;   // (B*T, Ckv)
  float* v;   // (B*T, Ckv)
  // The heads split out as (B, H, T, hd) copies of q and the per-head contexts, (B, Hkv, T, hd)
  // of k and v, as the lecture draws them (query_from == 0 only). Null: each head is read in place
  // from the projections' rows and writes its context straight into its columns of concat.
  float *q_heads, *k_heads, *v_heads, *context_heads;
  float* scores;        // (B, H, Tq, T) scaled scores (+ bias), masked -infinity; null: not kept
  float* attention;     // (B, H, Tq, T) the weights P; null: not kept (the backward needs them)
  float* concat;        // (B*Tq, C)
  HeadScratch scratch;  // attend_head_f32's working memory (split heads); may be null in place
};

// ROW(id, name): the stages, in order.
#define HEADWISE_ATTENTION_STAGES(ROW) \
  ROW(kProject, "project")             \
  ROW(kSplit, "split")                 \
  ROW(kAttend, "attend")               \
  ROW(kMerge, "merge")                 \
  ROW(kOutProject, "out-project")

enum class Stage : int {
#define HEADWISE_STAGE_ENUM(id, name) id,
  HEADWISE_ATTENTION_STAGES(HEADWISE_STAGE_ENUM)
#undef HEADWISE_STAGE_ENUM
};
constexpr Stage kStages[] = {Stage::kProject, Stage::kSplit, Stage::kAttend, Stage::kMerge,
                             Stage::kOutProject};

// One stage on the tensors (y: the output, written by out-project only).
void attention_stage(Stage stage, const AttentionShape& s, const AttentionParams& w, const float* x,
                     const AttentionTensors& t, float* y);
// The five stages in order.
void attention_forward(const AttentionShape& s, const AttentionParams& w, const float* x,
                       const AttentionTensors& t, float* y);

// bias (H, T, T): the position kind's score bias of each head, query i, key j (what attend adds).
void fill_score_bias(const AttentionShape& s, float* bias);

// The backward's working memory.
struct AttentionScratch {
  float* dconcat;  // (B*Tq, C)
  float* dq;       // (B*Tq, C)
  float* dk;       // (B*T, Ckv)
  float* dv;       // (B*T, Ckv)
  float* scores;   // (Tq, T): one (sequence, head) block of dP, then dS
};

// After a forward that kept the attention weights, with heads in place. From dy (B*Tq, D):
// parameter gradients (overwritten); dx (B*T, D) overwritten with the key and value paths'
// gradient; the query path's gradient (B*Tq, D) is ADDED to dx_query, so a caller can start it
// from a residual's gradient.
void attention_backward(const AttentionShape& s, const AttentionParams& w, const float* x,
                        const AttentionTensors& t, const float* dy, const AttentionGrads& g,
                        const AttentionScratch& scratch, float* dx, float* dx_query);

}  // namespace headwise::layers
