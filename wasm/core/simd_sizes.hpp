// Constants the SIMD kernels share with the code that sizes their memory: the lane width, the
// register tile, the attention tiles, and the attention scratch formula. Configuration and the
// tensor table include this, never a kernel header.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <xsimd/xsimd.hpp>

namespace headwise {

// Floats per SIMD vector: 4 in wasm SIMD128 (xsimd's sse4.2), 8 or 16 natively with -march=native.
constexpr std::size_t kLaneFloats = xsimd::batch<float>::size;

// The register tile shared by the GEMM micro-kernel and the attention scores: 4 rows by 2 SIMD
// vectors, 8 accumulators, which V8 keeps in registers (it spills at 12 or more).
constexpr std::size_t kTileRows = 4;
constexpr std::size_t kTileVectors = 2;

// The attention kernel's own names live in their own namespace: the GEMM has a kNr of its own.
namespace attention_sizes {

// Tiles of the online-softmax attention kernel: kBr query rows at a time against kBc keys at a
// time; scores and P @ V both run as kBr x kNr register tiles. kQb query rows (several kBr
// blocks) share each key tile while it is in cache.
constexpr std::size_t kBr = kTileRows;
constexpr std::size_t kNr = kTileVectors * kLaneFloats;
constexpr std::size_t kBc = 128;
constexpr std::size_t kQb = 32;
constexpr std::size_t kBrPadded = (kBr + kLaneFloats - 1) / kLaneFloats * kLaneFloats;
static_assert(kBc % kNr == 0 && kQb % kBr == 0, "tiles are whole panels and whole blocks");

// The attention scratch layout in floats: packed keys (whole kNr panels of head_dim rows), then
// the tiled kernel's work area (at least one score row: the rows path's block of score rows when
// the caller keeps no attention rows of its own, as for ALiBi without intermediates).
// Templates so the kernels use size_t and the budget uses uint64_t with the same formula.
template <typename Number>
constexpr Number whole(Number n, Number to) {
  return (n + to - 1) / to * to;
}
template <typename Number>
constexpr Number keys_floats(Number tokens, Number hd) {
  return whole(tokens, Number(kNr)) * hd;
}
template <typename Number>
constexpr Number tile_row_floats(Number tokens) {
  return std::min(Number(kBc), whole(tokens, Number(kNr)));
}
template <typename Number>
constexpr Number block_rows(Number tokens) {
  return std::min(Number(kQb), whole(tokens, Number(kBr)));
}
template <typename Number>
constexpr Number work_floats(Number tokens, Number hd) {
  const Number rows = block_rows(tokens);
  return std::max(tokens,
                  Number(2) * rows * hd + Number(kBr) * tile_row_floats(tokens) + Number(3) * rows);
}

}  // namespace attention_sizes

// Working memory of one head's attention, linear in tokens; reused by every head. The caller
// keeps tokens and head_dim small enough that the result fits a size_t (the budget checks it).
inline std::size_t head_scratch_floats(std::size_t tokens, std::size_t head_dim) {
  using namespace attention_sizes;
  return keys_floats(tokens, head_dim) + work_floats(tokens, head_dim);
}

// The same count in 64 bits for the budget; false (refuse) if tokens or head_dim is so large
// that the formula could wrap even in 64 bits.
inline bool head_scratch_floats_u64(std::uint64_t tokens, std::uint64_t head_dim,
                                    std::uint64_t* out) {
  constexpr std::uint64_t kMax = std::uint64_t(1) << 31;
  if (tokens > kMax || head_dim > kMax) return false;
  using namespace attention_sizes;
  *out = keys_floats(tokens, head_dim) + work_floats(tokens, head_dim);
  return true;
}

}  // namespace headwise
