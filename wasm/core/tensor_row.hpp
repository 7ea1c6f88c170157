// What one row of a model's tensor table says about a tensor: its role, when it is allocated, its
// shape as a product of named dimensions, and how it is initialised. Any model (this attention
// layer, or a larger one with embeddings and an MLP) describes its tensors with these rows, and
// sizes, memory budgets and seeding are computed from them, never written out a second time.
#pragma once

#include <array>
#include <cstdint>

#include "checked_u64.hpp"

namespace headwise {

// The dimension symbols shapes are written in. A model fills in a DimValues for its configuration.
enum class Dim : std::uint8_t {
  kB,     // batch
  kT,     // tokens
  kD,     // d_model, the width of the residual stream
  kH,     // heads
  kHd,    // head_dim
  kC,     // heads * head_dim, the concatenated heads
  kS,     // attention scratch floats, linear in tokens (head_scratch_floats)
  kV,     // vocabulary size (a trained model's token embedding)
  kM,     // hidden width of a block's MLP
  kK,     // classes of the readout
  kTq,    // positions a block computes outputs for (T, or the read positions in the last block)
  kHkv,   // K/V heads (grouped-query attention; H for multi-head)
  kCkv,   // kv heads * head_dim, the width of k and v
  kNone,  // marks "no dimension" (a fan-in of nothing)
};
constexpr int kDimCount = static_cast<int>(Dim::kNone);
using DimValues = std::array<std::uint64_t, kDimCount>;
// "B", "T", "D", "H", "hd", "C", "S", "V", "M", "K", "Tq", "Hkv", "Ckv": the symbols JavaScript
// receives.
const char* dim_symbol(Dim dim);

enum class Role : std::uint8_t {
  kWeight,          // a learned matrix, seeded uniform(-1/sqrt(fan_in), 1/sqrt(fan_in))
  kBias,            // a learned vector, seeded like its weight
  kEmbedding,       // a learned lookup table, seeded uniform(-sqrt(3), sqrt(3)) (variance 1)
  kNormGain,        // a LayerNorm's learned gain, starts at 1
  kNormBias,        // a LayerNorm's learned bias, starts at 0
  kActivation,      // what a step reads or writes, visible to callers
  kIntermediate,    // kept only on request, for inspection (the (B, H, T, T) scores)
  kScratch,         // working memory of a kernel, never meaningful between calls
  kGradient,        // d(loss)/d(a weight, bias or embedding), written by a backward pass
  kOptimizerState,  // Adam's moments and the like
};
const char* role_name(Role role);

// When a model holds the tensor; otherwise its buffer is empty (null, size 0).
enum class Alloc : std::uint8_t {
  kAlways,
  kWithBias,           // only when the configuration has biases
  kWithIntermediates,  // only while intermediates are kept (on request, checked against the budget)
  kWithInputPositions,  // only with positions added to x (learned, sinusoidal)
  kWithScoreBiasKept,   // only while intermediates are kept, with a score bias (ALiBi)
};
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
