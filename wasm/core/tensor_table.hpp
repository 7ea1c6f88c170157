// The attention layer's tensors, one row each: the only place they are listed. The TensorId
// enum, the allocation in Model::create, the memory budget, the seeding of weights, the names the
// bindings accept and the ids JavaScript uses all come from these rows. Adding a tensor (a
// gradient, a saved log-sum-exp per query row) is one more ROW line.
#pragma once

#include <cstddef>

#include "layers/attention.hpp"
#include "tensor_row.hpp"

namespace headwise {

// ROW(id, JS name, role, allocated, shape over the dims, rng stream, fan-in). Shapes use the
// symbols B, T, D (d_model), H, hd, C (= H * hd), Hkv (K/V heads), Ckv (= Hkv * hd), S (attention
// scratch); `none`: no fan-in. The
// stream a weight is seeded (or the input drawn) from is a fixed number, so a seed gives the same
// weights in every version; 0: not seeded (zeros). A seeded row takes a number no other row has.
#define HEADWISE_ATTENTION_TENSORS(ROW)                                                  \
  ROW(kWq, "wq", kWeight, kAlways, (D, C), 1, D)                                         \
  ROW(kWk, "wk", kWeight, kAlways, (D, Ckv), 2, D)                                       \
  ROW(kWv, "wv", kWeight, kAlways, (D, Ckv), 3, D)                                       \
  ROW(kWout, "wOut", kWeight, kAlways, (C, D), 4, C)                                     \
  ROW(kBq, "bq", kBias, kWithBias, (C), 5, D)                                            \
  ROW(kBk, "bk", kBias, kWithBias, (Ckv), 6, D)                                          \
  ROW(kBv, "bv", kBias, kWithBias, (Ckv), 7, D)                                          \
  ROW(kBout, "bOut", kBias, kWithBias, (D), 8, C)                                        \
  ROW(kInput, "input", kActivation, kAlways, (B, T, D), 9, none)                         \
  ROW(kPositions, "positions", kEmbedding, kWithInputPositions, (T, D), 10, none)        \
  ROW(kPositioned, "positioned", kActivation, kWithInputPositions, (B, T, D), 0, none)   \
  ROW(kQ, "q", kActivation, kAlways, (B, T, C), 0, none)                                 \
  ROW(kK, "k", kActivation, kAlways, (B, T, Ckv), 0, none)                               \
  ROW(kV, "v", kActivation, kAlways, (B, T, Ckv), 0, none)                               \
  ROW(kQHeads, "qHeads", kActivation, kAlways, (B, H, T, hd), 0, none)                   \
  ROW(kKHeads, "kHeads", kActivation, kAlways, (B, Hkv, T, hd), 0, none)                 \
  ROW(kVHeads, "vHeads", kActivation, kAlways, (B, Hkv, T, hd), 0, none)                 \
  ROW(kScores, "scores", kIntermediate, kWithIntermediates, (B, H, T, T), 0, none)       \
  ROW(kAttention, "attention", kIntermediate, kWithIntermediates, (B, H, T, T), 0, none) \
  ROW(kScoreBias, "scoreBias", kIntermediate, kWithScoreBiasKept, (H, T, T), 0, none)    \
  ROW(kContextHeads, "contextHeads", kActivation, kAlways, (B, H, T, hd), 0, none)       \
  ROW(kConcat, "concat", kActivation, kAlways, (B, T, C), 0, none)                       \
  ROW(kOutput, "output", kActivation, kAlways, (B, T, D), 0, none)                       \
  ROW(kHeadScratch, "headScratch", kScratch, kAlways, (S), 0, none)

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

// ROW(id, JS name): the steps a model can run, alone or as a whole forward pass: the attention
// operator's stages (layers/attention.hpp, Step and Stage share their ids), then two passes.
#define HEADWISE_STEPS(ROW)                                 \
  HEADWISE_ATTENTION_STAGES(ROW)                            \
  ROW(kForwardFused, "forwardFused") /* the stages above */ \
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
