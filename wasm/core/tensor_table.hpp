// The attention layer's tensors, one row each: the only place they are listed. The TensorId
// enum, the allocation in Model::create, the memory budget, the seeding of weights, the names the
// bindings accept and the ids JavaScript uses all come from these rows. The layer is one block of
// the layer library: a tensor a block has too (its weights, q, k, v, attention, concat) is a LIB
// row, whose name, shape and fan-in are the library's row (layers/stack_rows.hpp), written once.
#pragma once

#include <cstddef>

#include "layers/attention.hpp"
#include "layers/stack_rows.hpp"
#include "tensor_row.hpp"

namespace headwise {

// ROW(id, JS name, role, allocated, shape over the dims, rng stream, fan-in): the layer's own
// tensors. Shapes use the symbols B, T, D (d_model), H, hd, C (= H * hd), Hkv (K/V heads),
// S (attention scratch); `none`: no fan-in.
// LIB(id, parameter or activation, the block's field, allocated, rng stream): a block's tensor of
// the layer library; its Tq is T (the layer computes every position), and one kept only with
// intermediates is an intermediate.
// The stream a weight is seeded (or the input drawn) from is a fixed number, so a seed gives the
// same weights in every version; 0: not seeded (zeros). A seeded row takes a number no other has.
#define HEADWISE_ATTENTION_TENSORS(ROW, LIB)                                           \
  LIB(kWq, parameter, kWq, kAlways, 1)                                                 \
  LIB(kWk, parameter, kWk, kAlways, 2)                                                 \
  LIB(kWv, parameter, kWv, kAlways, 3)                                                 \
  LIB(kWout, parameter, kWout, kAlways, 4)                                             \
  LIB(kBq, parameter, kBq, kWithBias, 5)                                               \
  LIB(kBk, parameter, kBk, kWithBias, 6)                                               \
  LIB(kBv, parameter, kBv, kWithBias, 7)                                               \
  LIB(kBout, parameter, kBout, kWithBias, 8)                                           \
  ROW(kInput, "input", kActivation, kAlways, (B, T, D), 9, none)                       \
  ROW(kPositions, "positions", kEmbedding, kWithInputPositions, (T, D), 10, none)      \
  ROW(kPositioned, "positioned", kActivation, kWithInputPositions, (B, T, D), 0, none) \
  LIB(kQ, activation, kQ, kAlways, 0)                                                  \
  LIB(kK, activation, kK, kAlways, 0)                                                  \
  LIB(kV, activation, kV, kAlways, 0)                                                  \
  ROW(kQHeads, "qHeads", kActivation, kAlways, (B, H, T, hd), 0, none)                 \
  ROW(kKHeads, "kHeads", kActivation, kAlways, (B, Hkv, T, hd), 0, none)               \
  ROW(kVHeads, "vHeads", kActivation, kAlways, (B, Hkv, T, hd), 0, none)               \
  ROW(kScores, "scores", kIntermediate, kWithIntermediates, (B, H, T, T), 0, none)     \
  LIB(kAttention, activation, kAttention, kWithIntermediates, 0)                       \
  ROW(kScoreBias, "scoreBias", kIntermediate, kWithScoreBiasKept, (H, T, T), 0, none)  \
  ROW(kContextHeads, "contextHeads", kActivation, kAlways, (B, H, T, hd), 0, none)     \
  LIB(kConcat, activation, kConcat, kAlways, 0)                                        \
  ROW(kOutput, "output", kActivation, kAlways, (B, T, D), 0, none)                     \
  ROW(kHeadScratch, "headScratch", kScratch, kAlways, (S), 0, none)

enum class TensorId : int {
#define HEADWISE_TENSOR_ENUM(id, ...) id,
  HEADWISE_ATTENTION_TENSORS(HEADWISE_TENSOR_ENUM, HEADWISE_TENSOR_ENUM)
#undef HEADWISE_TENSOR_ENUM
};
constexpr int kTensorCount = 0
#define HEADWISE_TENSOR_COUNT(...) +1
    HEADWISE_ATTENTION_TENSORS(HEADWISE_TENSOR_COUNT, HEADWISE_TENSOR_COUNT)
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
