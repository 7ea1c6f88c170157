// The attention layer's tensors, one row each: the only place they are listed. The TensorId
// enum, the allocation in Model::create, the memory budget, the seeding of weights, the names the
// bindings accept and the ids JavaScript uses all come from these rows. Adding a tensor (a
// gradient, a saved log-sum-exp per query row) is one more ROW line.
#pragma once

#include <cstddef>

#include "tensor_row.hpp"

namespace headwise {

// ROW(id, JS name, role, allocated, shape over the dims, seed/draw stream, fan-in). Shapes use
// the symbols B, T, D (d_model), H, hd, C (= H * hd), S (attention scratch); `none`: no fan-in.
#define HEADWISE_ATTENTION_TENSORS(ROW)                                                      \
  ROW(kWq, "wq", kWeight, kAlways, (D, C), kWq, D)                                           \
  ROW(kWk, "wk", kWeight, kAlways, (D, C), kWk, D)                                           \
  ROW(kWv, "wv", kWeight, kAlways, (D, C), kWv, D)                                           \
  ROW(kWout, "wOut", kWeight, kAlways, (C, D), kWout, C)                                     \
  ROW(kBq, "bq", kBias, kWithBias, (C), kBq, D)                                              \
  ROW(kBk, "bk", kBias, kWithBias, (C), kBk, D)                                              \
  ROW(kBv, "bv", kBias, kWithBias, (C), kBv, D)                                              \
  ROW(kBout, "bOut", kBias, kWithBias, (D), kBout, C)                                        \
  ROW(kInput, "input", kActivation, kAlways, (B, T, D), kInput, none)                        \
  ROW(kQ, "q", kActivation, kAlways, (B, T, C), kNone, none)                                 \
  ROW(kK, "k", kActivation, kAlways, (B, T, C), kNone, none)                                 \
  ROW(kV, "v", kActivation, kAlways, (B, T, C), kNone, none)                                 \
  ROW(kQHeads, "qHeads", kActivation, kAlways, (B, H, T, hd), kNone, none)                   \
  ROW(kKHeads, "kHeads", kActivation, kAlways, (B, H, T, hd), kNone, none)                   \
  ROW(kVHeads, "vHeads", kActivation, kAlways, (B, H, T, hd), kNone, none)                   \
  ROW(kScores, "scores", kIntermediate, kWithIntermediates, (B, H, T, T), kNone, none)       \
  ROW(kAttention, "attention", kIntermediate, kWithIntermediates, (B, H, T, T), kNone, none) \
  ROW(kContextHeads, "contextHeads", kActivation, kAlways, (B, H, T, hd), kNone, none)       \
  ROW(kConcat, "concat", kActivation, kAlways, (B, T, C), kNone, none)                       \
  ROW(kOutput, "output", kActivation, kAlways, (B, T, D), kNone, none)                       \
  ROW(kHeadScratch, "headScratch", kScratch, kAlways, (S), kNone, none)

enum class TensorId : int {
#define HEADWISE_TENSOR_ENUM(id, ...) id,
  HEADWISE_ATTENTION_TENSORS(HEADWISE_TENSOR_ENUM)
#undef HEADWISE_TENSOR_ENUM
};
constexpr int kTensorCount = 0
#define HEADWISE_TENSOR_COUNT(...) +1
    HEADWISE_ATTENTION_TENSORS(HEADWISE_TENSOR_COUNT)
#undef HEADWISE_TENSOR_COUNT
    ;

// Rows in id order: tensor_table()[i].id == i.
const TensorRow* tensor_table();
inline const TensorRow& tensor_row(TensorId id) { return tensor_table()[static_cast<int>(id)]; }
// The row named `name` (a JS name such as "wOut"), or null.
const TensorRow* find_tensor_row(const char* name);

// ROW(id, JS name): the steps a model can run, alone or as a whole forward pass.
#define HEADWISE_STEPS(ROW)                                                                \
  ROW(kProject, "project")           /* input -> q, k, v */                                \
  ROW(kSplit, "split")               /* q, k, v -> per-head q, k, v */                     \
  ROW(kAttend, "attend")             /* per-head q, k, v -> per-head context (+ scores) */ \
  ROW(kMerge, "merge")               /* per-head context -> concat */                      \
  ROW(kOutProject, "outProject")     /* concat -> output */                                \
  ROW(kForwardFused, "forwardFused") /* the five steps above */                            \
  ROW(kForwardLoop, "forwardLoop")   /* head by head, as H single-head layers */

enum class Step : int {
#define HEADWISE_STEP_ENUM(id, name) id,
  HEADWISE_STEPS(HEADWISE_STEP_ENUM)
#undef HEADWISE_STEP_ENUM
};
constexpr int kStepCount = 0
#define HEADWISE_STEP_COUNT(...) +1
    HEADWISE_STEPS(HEADWISE_STEP_COUNT)
#undef HEADWISE_STEP_COUNT
    ;
const char* step_name(Step step);

}  // namespace headwise
