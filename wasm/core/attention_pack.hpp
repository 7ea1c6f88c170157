// The tiled attention kernel's packed operands: query blocks interleaved for the register tile,
// keys in panels of kNr columns. Inline: the kernel compiles them into its own body, as one
// function with its no-builtin loops (plain_loops.hpp).
#pragma once

#include <algorithm>
#include <cstddef>

#include "simd_sizes.hpp"

namespace headwise {
// Internal linkage, as when one file held every kernel: each kernel file gets its own copy, and
// clang inlines these single call sites into the kernel exactly as before.
namespace {

using namespace attention_sizes;

// Query rows [0, rows) times scale_by, in groups of kBr interleaved by column (group g holds
// out[(g * hd + d) * kBr + r] = scale_by * q[g * kBr + r][d]), zero rows up to whole groups: the
// kBr values scores_4x2v needs at each d are adjacent, and the scale is applied once per row.
inline void pack_queries(std::size_t rows, std::size_t hd, const float* q, float scale_by,
                         float* out) {
  for (std::size_t g = 0; g < rows; g += kBr, out += hd * kBr)
    for (std::size_t r = 0; r < kBr; ++r)
      for (std::size_t d = 0; d < hd; ++d)
        out[d * kBr + r] = g + r < rows ? scale_by * q[(g + r) * hd + d] : 0.0f;
}

// Keys in panels of kNr: panel j holds keys [j*kNr, (j+1)*kNr) as hd rows of kNr, zero padded.
inline void pack_keys(std::size_t tokens, std::size_t hd, const float* k, float* out) {
  for (std::size_t j0 = 0; j0 < tokens; j0 += kNr, out += hd * kNr) {
    const std::size_t w = std::min(kNr, tokens - j0);
    for (std::size_t c = 0; c < kNr; ++c)
      for (std::size_t d = 0; d < hd; ++d) out[d * kNr + c] = c < w ? k[(j0 + c) * hd + d] : 0.0f;
  }
}

}  // namespace
}  // namespace headwise
