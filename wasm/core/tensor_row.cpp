#include "tensor_row.hpp"

namespace headwise {

const char* dim_symbol(Dim dim) {
  switch (dim) {
    case Dim::kB:
      return "B";
    case Dim::kT:
      return "T";
    case Dim::kD:
      return "D";
    case Dim::kH:
      return "H";
    case Dim::kHd:
      return "hd";
    case Dim::kC:
      return "C";
    case Dim::kS:
      return "S";
    case Dim::kV:
      return "V";
    case Dim::kM:
      return "M";
    case Dim::kK:
      return "K";
    case Dim::kTq:
      return "Tq";
    case Dim::kHkv:
      return "Hkv";
    case Dim::kCkv:
      return "Ckv";
    case Dim::kNone:
      break;
  }
  return "";
}

const char* role_name(Role role) {
  switch (role) {
    case Role::kWeight:
      return "weight";
    case Role::kBias:
      return "bias";
    case Role::kEmbedding:
      return "embedding";
    case Role::kNormGain:
      return "normGain";
    case Role::kNormBias:
      return "normBias";
    case Role::kActivation:
      return "activation";
    case Role::kIntermediate:
      return "intermediate";
    case Role::kScratch:
      return "scratch";
    case Role::kGradient:
      return "gradient";
    case Role::kOptimizerState:
      return "optimizerState";
  }
  return "";
}

const char* alloc_name(Alloc alloc) {
  switch (alloc) {
    case Alloc::kAlways:
      return "always";
    case Alloc::kWithBias:
      return "withBias";
    case Alloc::kWithIntermediates:
      return "withIntermediates";
    case Alloc::kWithInputPositions:
      return "withInputPositions";
    case Alloc::kWithScoreBiasKept:
      return "withScoreBiasKept";
  }
  return "";
}

CheckedU64 row_floats(const TensorRow& row, const DimValues& dims) {
  CheckedU64 n = 1;
  for (int i = 0; i < row.shape.rank; ++i) {
    const Dim d = row.shape.dims[i];
    if (d == Dim::kNone) return CheckedU64::overflowed();  // a malformed row can never be allocated
    n *= dims[static_cast<int>(d)];
  }
  return n;
}

}  // namespace headwise
