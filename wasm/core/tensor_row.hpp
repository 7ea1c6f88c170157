// What one row of a model's tensor table says about a tensor: its role, when it is allocated, its
// shape as a product of named dimensions, and how it is initialised. Any model (this attention
// layer, or a larger one with embeddings and an MLP) describes its tensors with these rows, and
// sizes, memory budgets and seeding are computed from them, never written out a second time.
#pragma once

#include <array>
#include <cstdint>

#include "checked_u64.hpp"

namespace headwise {

// Each enum below is written once, with the name JavaScript receives for each value, in an
// X-macro: X(enumerator, name).

// The dimension symbols shapes are written in. A model fills in a DimValues for its configuration.
#define HEADWISE_DIMS(X)                                                                      \
  X(kB, "B")     /* batch */                                                                  \
  X(kT, "T")     /* tokens */                                                                 \
  X(kD, "D")     /* d_model, the width of the residual stream */                              \
  X(kH, "H")     /* heads */                                                                  \
  X(kHd, "hd")   /* head_dim */                                                               \
  X(kC, "C")     /* heads * head_dim, the concatenated heads */                               \
  X(kS, "S")     /* attention scratch floats, linear in tokens (head_scratch_floats) */       \
  X(kV, "V")     /* vocabulary size (a trained model's token embedding) */                    \
  X(kM, "M")     /* hidden width of a block's MLP */                                          \
  X(kK, "K")     /* classes of the readout */                                                 \
  X(kTq, "Tq")   /* positions a block computes outputs for (T, or the read positions last) */ \
  X(kHkv, "Hkv") /* K/V heads (grouped-query attention; H for multi-head) */                  \
  X(kCkv, "Ckv") /* K/V heads * head_dim, the width of k and v */

#define HEADWISE_ROLES(X)                                                                       \
  X(kWeight, "weight")             /* learned, seeded uniform(+-1/sqrt(fan_in)) */              \
  X(kBias, "bias")                 /* a learned vector, seeded like its weight */               \
  X(kEmbedding, "embedding")       /* a learned table, seeded uniform(+-sqrt(3)): variance 1 */ \
  X(kNormGain, "normGain")         /* a LayerNorm's learned gain, starts at 1 */                \
  X(kNormBias, "normBias")         /* a LayerNorm's learned bias, starts at 0 */                \
  X(kActivation, "activation")     /* what a step reads or writes, visible to callers */        \
  X(kIntermediate, "intermediate") /* kept only on request: the (B, H, T, T) scores */          \
  X(kScratch, "scratch")           /* a kernel's working memory, meaningless between calls */   \
  X(kGradient, "gradient")         /* d(loss)/d(a parameter), written by a backward pass */     \
  X(kOptimizerState, "optimizerState") /* Adam's moments and the like */

// When a model holds the tensor; otherwise its buffer is empty (null, size 0).
#define HEADWISE_ALLOCS(X)                                                                     \
  X(kAlways, "always")                                                                         \
  X(kWithBias, "withBias")                     /* only when the configuration has biases */    \
  X(kWithIntermediates, "withIntermediates")   /* while kept (on request, in the budget) */    \
  X(kWithInputPositions, "withInputPositions") /* positions added to x: learned, sinusoidal */ \
  X(kWithScoreBiasKept, "withScoreBiasKept")   /* while intermediates are, with a score bias */

#define HEADWISE_ENUMERATOR(e, name) e,
enum class Dim : std::uint8_t { HEADWISE_DIMS(HEADWISE_ENUMERATOR) kNone /* no dimension */ };
enum class Role : std::uint8_t { HEADWISE_ROLES(HEADWISE_ENUMERATOR) };
enum class Alloc : std::uint8_t { HEADWISE_ALLOCS(HEADWISE_ENUMERATOR) };
#undef HEADWISE_ENUMERATOR

constexpr int kDimCount = static_cast<int>(Dim::kNone);
using DimValues = std::array<std::uint64_t, kDimCount>;
const char* dim_symbol(Dim dim);  // "" for kNone
const char* role_name(Role role);
const char* alloc_name(Alloc alloc);

constexpr int kMaxRank = 4;
struct Shape {
  std::array<Dim, kMaxRank> dims;
  int rank;
};
template <typename... Dims>
constexpr Shape make_shape(Dims... dims) {
  static_assert(sizeof...(Dims) <= kMaxRank, "at most kMaxRank dimensions");
  Shape s{{Dim::kNone, Dim::kNone, Dim::kNone, Dim::kNone}, int(sizeof...(Dims))};
  int i = 0;
  ((s.dims[i++] = dims), ...);
  return s;
}

struct TensorRow {
  int id;            // the model's own id enum, as an int (its index in the table)
  const char* name;  // the name JavaScript uses
  Role role;
  Alloc alloc;
  Shape shape;
  std::uint32_t
      stream;  // rng stream it is seeded (weights, biases) or drawn (inputs) from; 0: none
  Dim fan_in;  // for weights and biases: the bound is 1/sqrt(this dimension)
};

// Floats of the row's shape for these dimensions, checked: an overflow comes back as !ok().
CheckedU64 row_floats(const TensorRow& row, const DimValues& dims);

}  // namespace headwise
