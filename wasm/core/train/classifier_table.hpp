// The classifier's tensor table, in the row format of the attention layer's table
// (tensor_row.hpp): each learned tensor has four rows, the parameter itself, its gradient and
// Adam's two moments. Each of those four slots is one contiguous buffer with the same layout, so
// a gradient or moment sits at its parameter's offset and Adam runs over whole buffers.
#pragma once

#include "tensor_row.hpp"

namespace headwise::train {

// ROW(id, JS name, role, shape over the dims, fan-in). Dims: V vocabulary, T tokens, D width,
// C = heads * head_dim (= D here), M MLP width, K classes.
#define HEADWISE_CLASSIFIER_PARAMETERS(ROW)                              \
  ROW(kTokenEmbedding, "tokenEmbedding", kEmbedding, (V, D), none)       \
  ROW(kPositionEmbedding, "positionEmbedding", kEmbedding, (T, D), none) \
  ROW(kWq, "wq", kWeight, (D, C), D)                                     \
  ROW(kBq, "bq", kBias, (C), D)                                          \
  ROW(kWk, "wk", kWeight, (D, C), D)                                     \
  ROW(kBk, "bk", kBias, (C), D)                                          \
  ROW(kWv, "wv", kWeight, (D, C), D)                                     \
  ROW(kBv, "bv", kBias, (C), D)                                          \
  ROW(kWout, "wOut", kWeight, (C, D), C)                                 \
  ROW(kBout, "bOut", kBias, (D), C)                                      \
  ROW(kW1, "w1", kWeight, (D, M), D)                                     \
  ROW(kB1, "b1", kBias, (M), D)                                          \
  ROW(kW2, "w2", kWeight, (M, D), M)                                     \
  ROW(kB2, "b2", kBias, (D), M)                                          \
  ROW(kWReadout, "wReadout", kWeight, (D, K), D)                         \
  ROW(kBReadout, "bReadout", kBias, (K), D)

enum Param : int {
#define HEADWISE_CLASSIFIER_ENUM(id, ...) id,
  HEADWISE_CLASSIFIER_PARAMETERS(HEADWISE_CLASSIFIER_ENUM)
#undef HEADWISE_CLASSIFIER_ENUM
      kParamCount
};

// Which of a parameter's four rows (and buffers).
enum class Slot : int { kValue = 0, kGradient = 1, kAdamM = 2, kAdamV = 3 };
constexpr int kSlotCount = 4;

// kSlotCount * kParamCount rows; row id = slot * kParamCount + param. Names: "wq", "wq.grad",
// "wq.adamM", "wq.adamV". Parameter p is seeded from rng stream kStreamBase + p.
constexpr std::uint32_t kStreamBase = 100;
const TensorRow* classifier_table();
inline const TensorRow& classifier_row(Param p, Slot s = Slot::kValue) {
  return classifier_table()[static_cast<int>(s) * kParamCount + p];
}

}  // namespace headwise::train
