#include "attention_head.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <xsimd/xsimd.hpp>

#include "exp_f32.hpp"
#include "plain_loops.hpp"
#include "tile_4x2v.hpp"

namespace headwise {

namespace {

using namespace attention_sizes;
using Batch = xsimd::batch<float>;
constexpr std::size_t kWidth = Batch::size;
constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
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

float max_of(const float* x, std::size_t n) {
  float best = kMinusInf;
  std::size_t i = 0;
  if (n >= kWidth) {
    Batch m = Batch::load_unaligned(x);
    for (i = kWidth; i + kWidth <= n; i += kWidth) m = xsimd::max(m, Batch::load_unaligned(x + i));
    alignas(64) float lanes[kWidth];
    m.store_aligned(lanes);
    for (float lane : lanes) best = lane > best ? lane : best;
  }
  for (; i < n; ++i) best = x[i] > best ? x[i] : best;
  return best;
}

// x[i] = Exp(x[i] - shift) for i < n; returns their sum. The tail runs as one padded vector
// (padding -infinity, whose exp is 0, or 2^-125 for exp2_nonpositive_f32: nothing next to the
// sum's 1): short rows cost one vector exp, not several scalar ones.
template <Batch (*Exp)(Batch)>
float exp_shifted(float* x, std::size_t n, float shift) {
  const Batch sb(shift);
  Batch sums(0.0f);
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth) {
    const Batch e = Exp(Batch::load_unaligned(x + i) - sb);
    e.store_unaligned(x + i);
    sums += e;
  }
  if (i < n) {
    alignas(64) float tail[kWidth];
    for (std::size_t t = 0; t < kWidth; ++t) tail[t] = i + t < n ? x[i + t] : kMinusInf;
    const Batch e = Exp(Batch::load_aligned(tail) - sb);
    e.store_aligned(tail);
    sums += e;
    for (std::size_t t = 0; i + t < n; ++t) x[i + t] = tail[t];
  }
  return xsimd::hadd(sums);
}

// y[0..n) += a * x[0..n)
void axpy(std::size_t n, float a, const float* x, float* y) {
  const Batch av(a);
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth)
    xsimd::fma(av, Batch::load_unaligned(x + i), Batch::load_unaligned(y + i)).store_unaligned(y + i);
  for (; i < n; ++i) y[i] += a * x[i];
}

void scale(std::size_t n, float a, float* y) {
  const Batch av(a);
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth) (Batch::load_unaligned(y + i) * av).store_unaligned(y + i);
  for (; i < n; ++i) y[i] *= a;
}

// Query rows [0, rows) times scale_by, in groups of kBr interleaved by column (group g holds
// out[(g * hd + d) * kBr + r] = scale_by * q[g * kBr + r][d]), zero rows up to whole groups: the
// kBr values scores_4x2v needs at each d are adjacent, and the scale is applied once per row.
void pack_queries(std::size_t rows, std::size_t hd, const float* q, float scale_by, float* out) {
  for (std::size_t g = 0; g < rows; g += kBr, out += hd * kBr)
    for (std::size_t r = 0; r < kBr; ++r)
      for (std::size_t d = 0; d < hd; ++d)
        out[d * kBr + r] = g + r < rows ? scale_by * q[(g + r) * hd + d] : 0.0f;
}

// Keys in panels of kNr: panel j holds keys [j*kNr, (j+1)*kNr) as hd rows of kNr, zero padded.
void pack_keys(std::size_t tokens, std::size_t hd, const float* k, float* out) {
  for (std::size_t j0 = 0; j0 < tokens; j0 += kNr, out += hd * kNr) {
    const std::size_t w = std::min(kNr, tokens - j0);
    for (std::size_t c = 0; c < kNr; ++c)
      for (std::size_t d = 0; d < hd; ++d) out[d * kNr + c] = c < w ? k[(j0 + c) * hd + d] : 0.0f;
  }
}

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

void softmax_row_f32(float* row, std::size_t n) {
  if (n == 0) return;
  const float m = max_of(row, n);
  if (m == kMinusInf) {  // fully masked: no weight anywhere (exp(-inf - -inf) would be NaN)
    std::fill(row, row + n, 0.0f);
    return;
  }
  scale(n, 1.0f / exp_shifted<exp_f32>(row, n, m), row);
}

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
        attend_tile(hd, j0, std::min(kBc, sub_end - j0), visible, keys, v, w.ldp, w.p,
                    w.q + s * hd, w.o + s * hd, w.max + s, w.sum + s, w.rescale + s);
      }
    }
    for (std::size_t r = 0; r < rows; ++r) {
      float* ctx = context + (i0 + r) * context_stride;
      const float inv = w.sum[r] > 0.0f ? 1.0f / w.sum[r] : 0.0f;
      for (std::size_t d = 0; d < hd; ++d) ctx[d] = w.o[r * hd + d] * inv;
    }
  }
}

void attend_head_rows_f32(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                          const float* k, const float* v, HeadScratch scratch, HeadOutputs out) {
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(head_dim));
  float* k_transposed = scratch.data;
  float* row = k_transposed + keys_floats(tokens, head_dim);
  // K^T lets each score row be built from contiguous axpys instead of horizontal dot products.
  for (std::size_t j = 0; j < tokens; ++j)
    for (std::size_t d = 0; d < head_dim; ++d) k_transposed[d * tokens + j] = k[j * head_dim + d];

  for (std::size_t i = 0; i < tokens; ++i) {
    const std::size_t visible = causal ? i + 1 : tokens;
    std::fill(row, row + visible, 0.0f);
    for (std::size_t d = 0; d < head_dim; ++d)
      axpy(visible, q[i * head_dim + d] * inv_sqrt, k_transposed + d * tokens, row);
    if (out.scores) {
      float* s = out.scores + i * tokens;
      std::copy(row, row + visible, s);
      std::fill(s + visible, s + tokens, kMinusInf);
    }
    softmax_row_f32(row, visible);
    if (out.attention) {
      float* p = out.attention + i * tokens;
      std::copy(row, row + visible, p);
      std::fill(p + visible, p + tokens, 0.0f);
    }
    float* ctx = out.context + i * out.context_stride;
    std::fill(ctx, ctx + head_dim, 0.0f);
    for (std::size_t j = 0; j < visible; ++j) axpy(head_dim, row[j], v + j * head_dim, ctx);
  }
}

void attend_head_short_f32(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                           const float* k, const float* v, float* context,
                           std::size_t context_stride) {
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(head_dim));
  float row[kShortTokens];
  for (std::size_t i = 0; i < tokens; ++i) {
    const std::size_t visible = causal ? i + 1 : tokens;
    const float* qi = q + i * head_dim;
    float max = kMinusInf;
    for (std::size_t j = 0; j < visible; ++j) {
      const float* kj = k + j * head_dim;
      float dot = 0.0f;
      for (std::size_t d = 0; d < head_dim; ++d) dot += qi[d] * kj[d];
      row[j] = dot * inv_sqrt;
      max = row[j] > max ? row[j] : max;
    }
    float total = 0.0f;
    for (std::size_t j = 0; j < visible; ++j) total += row[j] = std::exp(row[j] - max);
    const float inv_sum = 1.0f / total;
    float* ctx = context + i * context_stride;
    for (std::size_t d = 0; d < head_dim; ++d) {
      float sum = 0.0f;
      for (std::size_t j = 0; j < visible; ++j) sum += row[j] * v[j * head_dim + d];
      ctx[d] = sum * inv_sum;
    }
  }
}

void attend_head_f32(std::size_t tokens, std::size_t head_dim, bool causal, const float* q,
                     const float* k, const float* v, HeadScratch scratch, HeadOutputs out) {
  if (out.scores || out.attention)
    attend_head_rows_f32(tokens, head_dim, causal, q, k, v, scratch, out);
  else if (is_short_head(tokens, head_dim))
    attend_head_short_f32(tokens, head_dim, causal, q, k, v, out.context, out.context_stride);
  else
    attend_head_tiled_f32(tokens, head_dim, causal, q, k, v, scratch, out.context,
                          out.context_stride);
}

}  // namespace headwise
