// The tiled attention kernel with online softmax (see attend_head_tiled_f32 in attention_head.hpp).
#include <algorithm>
#include <cmath>
#include <xsimd/xsimd.hpp>

#include "attention_head.hpp"
#include "attention_pack.hpp"
#include "attention_vector_ops.hpp"
#include "exp_f32.hpp"
#include "plain_loops.hpp"
#include "tile_4x2v.hpp"

namespace headwise {

namespace {

using namespace attention_sizes;
constexpr float kLog2e = 1.44269504088896341f;

// The tiled kernel's work area, after the packed keys. Short sequences get short rows and blocks
// (ldp = min(kBc, tokens in whole panels), rows = min(kQb, tokens in whole kBr blocks)).
struct TileWork {
  std::size_t ldp;
  float* q;        // rows x hd, the query rows of this block, scaled and packed (pack_queries)
  float* p;        // kBr x ldp, scores of one tile, then their exp
  float* o;        // rows x hd, unnormalised context
  float* max;      // rows running maxima
  float* sum;      // rows running sums
  float* rescale;  // rows factors exp(old max - new max) for the current tile
};

// p[r][0..kNr) = q[r] . keys of one panel, for the kBr rows of a query block packed by
// pack_queries (already scaled): the GEMM's register tile, queries as its packed A.
void scores_4x2v(std::size_t hd, const float* q, const float* panel, float* p, std::size_t ldp) {
  TileAccumulators acc;
  for (auto& row : acc) row[0] = row[1] = Batch(0.0f);
  multiply_add_4x2v(hd, q, panel, acc);
  for (std::size_t r = 0; r < kBr; ++r) {
    acc[r][0].store_unaligned(p + r * ldp);
    acc[r][1].store_unaligned(p + r * ldp + kWidth);
  }
}

// o[r][0..kVectors*kWidth) = rescale[r] * o[r] + sum_j p[r][j] * v[j], over n keys, one column
// block of the context (o and v point at its first column; rows hd apart).
template <std::size_t kVectors>
void context_4xv(std::size_t n, std::size_t hd, const float* p, std::size_t ldp, const float* v,
                 const float* rescale, float* o) {
  Batch acc[kBr][kVectors];
  for (std::size_t r = 0; r < kBr; ++r)
    for (std::size_t c = 0; c < kVectors; ++c)
      acc[r][c] = Batch::load_unaligned(o + r * hd + c * kWidth) * Batch(rescale[r]);
  for (std::size_t j = 0; j < n; ++j, v += hd) {
    Batch b[kVectors];
    for (std::size_t c = 0; c < kVectors; ++c) b[c] = Batch::load_unaligned(v + c * kWidth);
    for (std::size_t r = 0; r < kBr; ++r) {
      const Batch a(p[r * ldp + j]);
      for (std::size_t c = 0; c < kVectors; ++c) acc[r][c] = xsimd::fma(a, b[c], acc[r][c]);
    }
  }
  for (std::size_t r = 0; r < kBr; ++r)
    for (std::size_t c = 0; c < kVectors; ++c) acc[r][c].store_unaligned(o + r * hd + c * kWidth);
}

void context_scalar_column(std::size_t n, std::size_t hd, const float* p, std::size_t ldp,
                           const float* v, const float* rescale, float* o) {
  for (std::size_t r = 0; r < kBr; ++r) {
    float acc = o[r * hd] * rescale[r];
    for (std::size_t j = 0; j < n; ++j) acc += p[r * ldp + j] * v[j * hd];
    o[r * hd] = acc;
  }
}

// o = diag(rescale) o + P (kBr x n) @ V (n x hd).
void accumulate_context(std::size_t n, std::size_t hd, const float* p, std::size_t ldp,
                        const float* v, const float* rescale, float* o) {
  std::size_t c = 0;
  for (; c + kNr <= hd; c += kNr) context_4xv<2>(n, hd, p, ldp, v + c, rescale, o + c);
  for (; c + kWidth <= hd; c += kWidth) context_4xv<1>(n, hd, p, ldp, v + c, rescale, o + c);
  for (; c < hd; ++c) context_scalar_column(n, hd, p, ldp, v + c, rescale, o + c);
}

// One key tile for kBr query rows: scores, online-softmax update, context update. q, o, max,
// sum and rescale point at the block's rows.
HEADWISE_PLAIN_LOOPS void attend_tile(std::size_t hd, std::size_t j0, std::size_t n,
                                      const std::size_t* visible, const float* keys, const float* v,
                                      std::size_t ldp, float* p_tile, const float* q, float* o,
                                      float* max, float* sum, float* rescale) {
  for (std::size_t jj = 0; jj < n; jj += kNr)
    scores_4x2v(hd, q, keys + (j0 + jj) * hd, p_tile + jj, ldp);
  // New running maxima first, so that the kBr rescale factors are one vector exp.
  alignas(64) float old_max[kBrPadded], new_max[kBrPadded], factor[kBrPadded];
  std::size_t valid[kBr];
  for (std::size_t r = 0; r < kBrPadded; ++r) old_max[r] = new_max[r] = 0.0f;
  for (std::size_t r = 0; r < kBr; ++r) {
    float* p = p_tile + r * ldp;
    valid[r] = visible[r] > j0 ? std::min(n, visible[r] - j0) : 0;
    std::fill(p + valid[r], p + n, 0.0f);  // masked keys (above the diagonal) weigh nothing
    // exp(-inf - -inf) is NaN: rows that see nothing yet keep max -inf and factor 1.
    old_max[r] = max[r];
    new_max[r] = valid[r] ? std::max(max[r], max_of(p, valid[r])) : max[r];
    if (new_max[r] == kMinusInf) old_max[r] = new_max[r] = 0.0f;
  }
  // 1 where the max did not move; on a row's first tile (old max -infinity) it is 2^-125, which
  // scales the zeros of o and sum.
  for (std::size_t r = 0; r < kBrPadded; r += kWidth)
    exp2_nonpositive_f32(Batch::load_aligned(old_max + r) - Batch::load_aligned(new_max + r))
        .store_aligned(factor + r);
  for (std::size_t r = 0; r < kBr; ++r) {
    rescale[r] = factor[r];
    if (valid[r] == 0) continue;
    sum[r] = sum[r] * factor[r] +
             exp_shifted<exp2_nonpositive_f32>(p_tile + r * ldp, valid[r], new_max[r]);
    max[r] = new_max[r];
  }
  accumulate_context(n, hd, p_tile, ldp, v + j0 * hd, rescale, o);
}

}  // namespace

HEADWISE_PLAIN_LOOPS void attend_head_tiled_f32(std::size_t tokens, std::size_t hd, bool causal,
                                                const float* q, const float* k, const float* v,
                                                HeadScratch scratch, float* context,
                                                std::size_t context_stride) {
  // Scores in base 2 (times log2(e)), for exp2_nonpositive_f32: the same softmax.
  const float scale_by = kLog2e / std::sqrt(static_cast<float>(hd));
  float* keys = scratch.data;
  const std::size_t block = block_rows(tokens);
  TileWork w;
  w.ldp = tile_row_floats(tokens);
  w.q = keys + keys_floats(tokens, hd);
  w.p = w.q + block * hd;
  w.o = w.p + kBr * w.ldp;
  w.max = w.o + block * hd;
  w.sum = w.max + block;
  w.rescale = w.sum + block;
  pack_keys(tokens, hd, k, keys);
  for (std::size_t i0 = 0; i0 < tokens; i0 += block) {
    const std::size_t rows = std::min(block, tokens - i0), padded = whole(rows, kBr);
    pack_queries(rows, hd, q + i0 * hd, scale_by, w.q);
    std::fill(w.o, w.o + padded * hd, 0.0f);
    std::fill(w.max, w.max + padded, kMinusInf);
    std::fill(w.sum, w.sum + padded, 0.0f);
    // Causal: each kBr block stops at its last row's diagonal, so every tile above the diagonal
    // is skipped, not masked; only the tile on the diagonal masks (a suffix of each row).
    const std::size_t end = causal ? i0 + rows : tokens;
    for (std::size_t j0 = 0; j0 < end; j0 += kBc) {
      for (std::size_t s = 0; s < padded; s += kBr) {
        const std::size_t sub_end = causal ? std::min(i0 + s + kBr, end) : end;
        if (j0 >= sub_end) continue;  // this tile is above all of these rows' diagonals
        std::size_t visible[kBr];
        for (std::size_t r = 0; r < kBr; ++r)
          visible[r] = causal ? std::min(i0 + s + r + 1, sub_end) : end;
        attend_tile(hd, j0, std::min(kBc, sub_end - j0), visible, keys, v, w.ldp, w.p, w.q + s * hd,
                    w.o + s * hd, w.max + s, w.sum + s, w.rescale + s);
      }
    }
    for (std::size_t r = 0; r < rows; ++r) {
      float* ctx = context + (i0 + r) * context_stride;
      const float inv = w.sum[r] > 0.0f ? 1.0f / w.sum[r] : 0.0f;
      for (std::size_t d = 0; d < hd; ++d) ctx[d] = w.o[r * hd + d] * inv;
    }
  }
}

}  // namespace headwise
