// Every tensor of a layer stack, one row each, in three parts: the input layer, each block, and
// the readout. The only place they are listed: the parameter buffers' layout (and so the names
// getWeights() gives), the seeding, the activations' memory, the budget and the table JavaScript
// reads are all computed from these rows and the spec (stack_table.hpp).
//
// ROW(field, name, role, shape, fan-in, needs). Shapes use B (sequences), T, Tq (positions the
// part computes: T in an inner block, the read positions in the last block and the readout), D,
// H, hd, C (= H * hd), M (MLP width), V (vocabulary), K (classes). Parameters are seeded in table
// order, each from the next rng stream (from kFirstStream), so the weights of a seed never depend
// on anything but the rows before them.
#pragma once

#include <cstdint>

#include "tensor_row.hpp"

namespace headwise::layers {

// When a row exists, for a given spec.
enum class Needs : std::uint8_t {
  kAlways,
  kBias,              // spec.bias
  kLearnedPositions,  // the position kind has a learned table
  kLayerNorm,         // spec.layer_norm
  kMlp,               // spec.mlp > 0
  kMlpBias,           // spec.mlp > 0 and spec.bias
  kMlpLayerNorm,      // spec.mlp > 0 and spec.layer_norm
  kGather,            // the part computes fewer positions than T (queries gathered)
};

#define HEADWISE_INPUT_PARAMETERS(ROW)                                      \
  ROW(kTokenEmbedding, "tokenEmbedding", kEmbedding, (V, D), none, kAlways) \
  ROW(kPositionEmbedding, "positionEmbedding", kEmbedding, (T, D), none, kLearnedPositions)

#define HEADWISE_BLOCK_PARAMETERS(ROW)                           \
  ROW(kLn1Gain, "ln1.gain", kNormGain, (D), none, kLayerNorm)    \
  ROW(kLn1Bias, "ln1.bias", kNormBias, (D), none, kLayerNorm)    \
  ROW(kWq, "wq", kWeight, (D, C), D, kAlways)                    \
  ROW(kBq, "bq", kBias, (C), D, kBias)                           \
  ROW(kWk, "wk", kWeight, (D, Ckv), D, kAlways)                  \
  ROW(kBk, "bk", kBias, (Ckv), D, kBias)                         \
  ROW(kWv, "wv", kWeight, (D, Ckv), D, kAlways)                  \
  ROW(kBv, "bv", kBias, (Ckv), D, kBias)                         \
  ROW(kWout, "wOut", kWeight, (C, D), C, kAlways)                \
  ROW(kBout, "bOut", kBias, (D), C, kBias)                       \
  ROW(kLn2Gain, "ln2.gain", kNormGain, (D), none, kMlpLayerNorm) \
  ROW(kLn2Bias, "ln2.bias", kNormBias, (D), none, kMlpLayerNorm) \
  ROW(kW1, "w1", kWeight, (D, M), D, kMlp)                       \
  ROW(kB1, "b1", kBias, (M), D, kMlpBias)                        \
  ROW(kW2, "w2", kWeight, (M, D), M, kMlp)                       \
  ROW(kB2, "b2", kBias, (D), M, kMlpBias)

#define HEADWISE_READOUT_PARAMETERS(ROW)                      \
  ROW(kLnFGain, "lnF.gain", kNormGain, (D), none, kLayerNorm) \
  ROW(kLnFBias, "lnF.bias", kNormBias, (D), none, kLayerNorm) \
  ROW(kWReadout, "wReadout", kWeight, (D, K), D, kAlways)     \
  ROW(kBReadout, "bReadout", kBias, (K), D, kBias)

// Activations: what a forward pass writes and its backward reads, for up to B sequences.
#define HEADWISE_INPUT_ACTIVATIONS(ROW) ROW(kX0, "x0", kActivation, (B, T, D), none, kAlways)

#define HEADWISE_BLOCK_ACTIVATIONS(ROW)                                   \
  ROW(kLn1Out, "ln1.out", kActivation, (B, T, D), none, kLayerNorm)       \
  ROW(kLn1Mean, "ln1.mean", kActivation, (B, T), none, kLayerNorm)        \
  ROW(kLn1Rstd, "ln1.rstd", kActivation, (B, T), none, kLayerNorm)        \
  ROW(kXq, "xq", kActivation, (B, Tq, D), none, kGather)                  \
  ROW(kQ, "q", kActivation, (B, Tq, C), none, kAlways)                    \
  ROW(kK, "k", kActivation, (B, T, Ckv), none, kAlways)                   \
  ROW(kV, "v", kActivation, (B, T, Ckv), none, kAlways)                   \
  ROW(kAttention, "attention", kActivation, (B, H, Tq, T), none, kAlways) \
  ROW(kConcat, "concat", kActivation, (B, Tq, C), none, kAlways)          \
  ROW(kH, "h", kActivation, (B, Tq, D), none, kAlways)                    \
  ROW(kLn2Out, "ln2.out", kActivation, (B, Tq, D), none, kMlpLayerNorm)   \
  ROW(kLn2Mean, "ln2.mean", kActivation, (B, Tq), none, kMlpLayerNorm)    \
  ROW(kLn2Rstd, "ln2.rstd", kActivation, (B, Tq), none, kMlpLayerNorm)    \
  ROW(kZ, "z", kActivation, (B, Tq, M), none, kMlp)                       \
  ROW(kR, "r", kActivation, (B, Tq, M), none, kMlp)                       \
  ROW(kOut, "out", kActivation, (B, Tq, D), none, kMlp)

#define HEADWISE_READOUT_ACTIVATIONS(ROW)                            \
  ROW(kLnFOut, "lnF.out", kActivation, (B, Tq, D), none, kLayerNorm) \
  ROW(kLnFMean, "lnF.mean", kActivation, (B, Tq), none, kLayerNorm)  \
  ROW(kLnFRstd, "lnF.rstd", kActivation, (B, Tq), none, kLayerNorm)  \
  ROW(kLogits, "logits", kActivation, (B, Tq, K), none, kAlways)     \
  ROW(kDLogits, "dLogits", kScratch, (B, Tq, K), none, kAlways)      \
  /* the backward's working memory, shared by every block */         \
  ROW(kDResidualA, "dResidualA", kScratch, (B, T, D), none, kAlways) \
  ROW(kDResidualB, "dResidualB", kScratch, (B, T, D), none, kAlways) \
  ROW(kDNorm, "dNorm", kScratch, (B, T, D), none, kLayerNorm)        \
  ROW(kDConcat, "dConcat", kScratch, (B, T, C), none, kAlways)       \
  ROW(kDQ, "dq", kScratch, (B, T, C), none, kAlways)                 \
  ROW(kDK, "dk", kScratch, (B, T, Ckv), none, kAlways)               \
  ROW(kDV, "dv", kScratch, (B, T, Ckv), none, kAlways)               \
  ROW(kDHidden, "dHidden", kScratch, (B, T, M), none, kMlp)          \
  ROW(kScoreScratch, "scoreScratch", kScratch, (T, T), none, kAlways)

#define HEADWISE_ROW_FIELD(field, ...) field,
enum InputParam : int { HEADWISE_INPUT_PARAMETERS(HEADWISE_ROW_FIELD) kInputParamCount };
enum BlockParam : int { HEADWISE_BLOCK_PARAMETERS(HEADWISE_ROW_FIELD) kBlockParamCount };
enum ReadoutParam : int { HEADWISE_READOUT_PARAMETERS(HEADWISE_ROW_FIELD) kReadoutParamCount };
enum InputActivation : int { HEADWISE_INPUT_ACTIVATIONS(HEADWISE_ROW_FIELD) kInputActCount };
enum BlockActivation : int { HEADWISE_BLOCK_ACTIVATIONS(HEADWISE_ROW_FIELD) kBlockActCount };
enum ReadoutActivation : int { HEADWISE_READOUT_ACTIVATIONS(HEADWISE_ROW_FIELD) kReadoutActCount };
#undef HEADWISE_ROW_FIELD

// One row of a part: TensorRow's fields plus when it exists.
struct PartRow {
  TensorRow row;
  Needs needs;
};
struct PartRows {
  const PartRow* rows;
  int count;
};

enum class Part : int { kInput = 0, kBlock = 1, kReadout = 2 };
PartRows parameter_rows(Part part);
PartRows activation_rows(Part part);

constexpr std::uint32_t kFirstStream = 100;

}  // namespace headwise::layers
