#include "gemm_f32.hpp"

#include <algorithm>
#include <xsimd/xsimd.hpp>

#include "tile_4x2v.hpp"

namespace headwise {

namespace {

using Batch = xsimd::batch<float>;
constexpr std::size_t kWidth = Batch::size;

// Register tile (tile_4x2v.hpp): kMr rows of C by kNr columns, two SIMD vectors.
constexpr std::size_t kMr = kTileRows;
constexpr std::size_t kNr = kTileVectors * kWidth;
// Cache blocks: a kKc x kNc slab of B packed in panels (L2), a kMc x kKc block of A packed in
// row panels (L1/L2), each B panel (kKc x kNr) reused by all kMc / kMr row panels of the block.
constexpr std::size_t kKc = 256;
constexpr std::size_t kNc = 512;
constexpr std::size_t kMc = 64;
// Below this many multiply-adds packing costs more than it saves (toy shapes, single heads).
constexpr std::size_t kPackedMinWork = 32 * 32 * 32;

// Packing scratch. The core is single-threaded (wasm threads would need cross-origin isolation,
// which a page framed by a slide deck cannot have), so one static pair of panels serves every call
// and packing never allocates.
alignas(64) float packed_a[kMc * kKc];
alignas(64) float packed_b[kKc * kNc];

// packed (kc x kNr per panel, panels kNr apart in columns) <- B[0..kc, 0..n), zero padded.
void pack_b(std::size_t kc, std::size_t n, const float* b, std::size_t ldb, float* out) {
  for (std::size_t j = 0; j < n; j += kNr, out += kc * kNr) {
    const std::size_t w = std::min(kNr, n - j);
    if (w == kNr) {
      for (std::size_t p = 0; p < kc; ++p)
        for (std::size_t v = 0; v < kNr; v += kWidth)
          Batch::load_unaligned(b + p * ldb + j + v).store_aligned(out + p * kNr + v);
    } else {
      for (std::size_t p = 0; p < kc; ++p) {
        std::size_t c = 0;
        for (; c < w; ++c) out[p * kNr + c] = b[p * ldb + j + c];
        for (; c < kNr; ++c) out[p * kNr + c] = 0.0f;
      }
    }
  }
}

// packed (kc x kMr per panel, interleaved by k) <- A[0..m, 0..kc), zero padded.
void pack_a(std::size_t m, std::size_t kc, const float* a, std::size_t lda, float* out) {
  for (std::size_t i = 0; i < m; i += kMr, out += kc * kMr) {
    const std::size_t h = std::min(kMr, m - i);
    for (std::size_t r = 0; r < h; ++r)
      for (std::size_t p = 0; p < kc; ++p) out[p * kMr + r] = a[(i + r) * lda + p];
    for (std::size_t r = h; r < kMr; ++r)
      for (std::size_t p = 0; p < kc; ++p) out[p * kMr + r] = 0.0f;
  }
}

// C tile (kMr x kNr) = init + packed A panel @ packed B panel over kc. init is C itself when
// accumulating, else the bias (or zero). The caller's tile may be partial: rows x cols.
void micro_4x2v(std::size_t kc, const float* ap, const float* bp, bool accumulate,
                const float* bias, float* c, std::size_t ldc, std::size_t rows, std::size_t cols) {
  TileAccumulators acc;
  const bool full = rows == kMr && cols == kNr;
  for (std::size_t r = 0; r < kMr; ++r)
    for (std::size_t v = 0; v < kTileVectors; ++v)
      acc[r][v] = accumulate && full ? Batch::load_unaligned(c + r * ldc + v * kWidth) : Batch(0.0f);
  multiply_add_4x2v(kc, ap, bp, acc);
  if (full) {
    for (std::size_t r = 0; r < kMr; ++r)
      for (std::size_t v = 0; v < kTileVectors; ++v) {
        if (!accumulate && bias) acc[r][v] += Batch::load_unaligned(bias + v * kWidth);
        acc[r][v].store_unaligned(c + r * ldc + v * kWidth);
      }
    return;
  }
  alignas(64) float tile[kMr * kNr];
  for (std::size_t r = 0; r < kMr; ++r)
    for (std::size_t v = 0; v < kTileVectors; ++v) acc[r][v].store_aligned(tile + r * kNr + v * kWidth);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < cols; ++j)
      c[r * ldc + j] = tile[r * kNr + j] + (accumulate ? c[r * ldc + j] : bias ? bias[j] : 0.0f);
}

void gemm_packed(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                 const float* bias, float* c, std::size_t ldc) {
  for (std::size_t jc = 0; jc < n; jc += kNc) {
    const std::size_t nc = std::min(kNc, n - jc);
    for (std::size_t pc = 0; pc < k; pc += kKc) {
      const std::size_t kc = std::min(kKc, k - pc);
      const bool accumulate = pc > 0;
      pack_b(kc, nc, b.data + pc * b.stride + jc, b.stride, packed_b);
      for (std::size_t ic = 0; ic < m; ic += kMc) {
        const std::size_t mc = std::min(kMc, m - ic);
        pack_a(mc, kc, a.data + ic * a.stride + pc, a.stride, packed_a);
        for (std::size_t jr = 0; jr < nc; jr += kNr) {
          const std::size_t cols = std::min(kNr, nc - jr);
          const float* bp = packed_b + jr * kc;
          const float* bias_j = bias ? bias + jc + jr : nullptr;
          for (std::size_t ir = 0; ir < mc; ir += kMr) {
            micro_4x2v(kc, packed_a + ir * kc, bp, accumulate, bias_j,
                       c + (ic + ir) * ldc + jc + jr, ldc, std::min(kMr, mc - ir), cols);
          }
        }
      }
    }
  }
}

// Unpacked path for small products: rows of A and B read in place, whole k per tile.
template <std::size_t kRows, std::size_t kVectors>
void tile(std::size_t k, const float* a, std::size_t lda, const float* b, std::size_t ldb,
          const float* bias, float* c, std::size_t ldc) {
  Batch acc[kRows][kVectors];
  for (std::size_t v = 0; v < kVectors; ++v) {
    const Batch init = bias ? Batch::load_unaligned(bias + v * kWidth) : Batch(0.0f);
    for (std::size_t r = 0; r < kRows; ++r) acc[r][v] = init;
  }
  for (std::size_t p = 0; p < k; ++p) {
    Batch bv[kVectors];
    for (std::size_t v = 0; v < kVectors; ++v) bv[v] = Batch::load_unaligned(b + p * ldb + v * kWidth);
    for (std::size_t r = 0; r < kRows; ++r) {
      const Batch av(a[r * lda + p]);
      for (std::size_t v = 0; v < kVectors; ++v) acc[r][v] = xsimd::fma(av, bv[v], acc[r][v]);
    }
  }
  for (std::size_t r = 0; r < kRows; ++r)
    for (std::size_t v = 0; v < kVectors; ++v) acc[r][v].store_unaligned(c + r * ldc + v * kWidth);
}

// Columns left over after the vector tiles, one row and one column at a time.
void scalar_columns(std::size_t rows, std::size_t j0, std::size_t n, std::size_t k, const float* a,
                    std::size_t lda, const float* b, std::size_t ldb, const float* bias, float* c,
                    std::size_t ldc) {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = j0; j < n; ++j) {
      float sum = bias ? bias[j] : 0.0f;
      for (std::size_t p = 0; p < k; ++p) sum += a[r * lda + p] * b[p * ldb + j];
      c[r * ldc + j] = sum;
    }
  }
}

template <std::size_t kRows>
void row_block(std::size_t n, std::size_t k, const float* a, std::size_t lda, const float* b,
               std::size_t ldb, const float* bias, float* c, std::size_t ldc) {
  std::size_t j = 0;
  for (; j + 2 * kWidth <= n; j += 2 * kWidth)
    tile<kRows, 2>(k, a, lda, b + j, ldb, bias ? bias + j : nullptr, c + j, ldc);
  for (; j + kWidth <= n; j += kWidth)
    tile<kRows, 1>(k, a, lda, b + j, ldb, bias ? bias + j : nullptr, c + j, ldc);
  if (j < n) scalar_columns(kRows, j, n, k, a, lda, b, ldb, bias, c, ldc);
}

void gemm_direct(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                 const float* bias, float* c, std::size_t ldc) {
  std::size_t i = 0;
  for (; i + 4 <= m; i += 4)
    row_block<4>(n, k, a.data + i * a.stride, a.stride, b.data, b.stride, bias, c + i * ldc, ldc);
  for (; i < m; ++i)
    row_block<1>(n, k, a.data + i * a.stride, a.stride, b.data, b.stride, bias, c + i * ldc, ldc);
}

// Few columns (n < kNr) over a long k, as in the out-projection of thousands of tiny heads onto a
// narrow width: tiles along n would be mostly padding, so each C entry is a dot product along k
// instead, on B's columns transposed kKc rows at a time into the packing buffer.
constexpr std::size_t kDotsMinDepth = 8 * kWidth;

template <std::size_t kRows>
void dots(std::size_t kc, const float* a, std::size_t lda, const float* column, float* c,
          std::size_t ldc) {
  Batch acc[kRows];
  for (std::size_t r = 0; r < kRows; ++r) acc[r] = Batch(0.0f);
  std::size_t p = 0;
  for (; p + kWidth <= kc; p += kWidth) {
    const Batch bv = Batch::load_aligned(column + p);
    for (std::size_t r = 0; r < kRows; ++r)
      acc[r] = xsimd::fma(Batch::load_unaligned(a + r * lda + p), bv, acc[r]);
  }
  for (std::size_t r = 0; r < kRows; ++r) {
    float sum = xsimd::hadd(acc[r]);
    for (std::size_t q = p; q < kc; ++q) sum += a[r * lda + q] * column[q];
    c[r * ldc] += sum;
  }
}

void gemm_dots(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
               const float* bias, float* c, std::size_t ldc) {
  static_assert(kNr * kKc <= kKc * kNc, "n < kNr columns of kKc fit the packing buffer");
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) c[i * ldc + j] = bias ? bias[j] : 0.0f;
  for (std::size_t pc = 0; pc < k; pc += kKc) {
    const std::size_t kc = std::min(kKc, k - pc);
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t p = 0; p < kc; ++p) packed_b[j * kKc + p] = b.data[(pc + p) * b.stride + j];
    std::size_t i = 0;
    for (; i + 4 <= m; i += 4)
      for (std::size_t j = 0; j < n; ++j)
        dots<4>(kc, a.data + i * a.stride + pc, a.stride, packed_b + j * kKc, c + i * ldc + j, ldc);
    for (; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j)
        dots<1>(kc, a.data + i * a.stride + pc, a.stride, packed_b + j * kKc, c + i * ldc + j, ldc);
  }
}

}  // namespace

void gemm_f32(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
              const float* bias, float* c, std::size_t ldc) {
  if (n < kNr && k >= kDotsMinDepth)
    gemm_dots(m, n, k, a, b, bias, c, ldc);
  else if (m * n * k < kPackedMinWork || n < kNr)
    gemm_direct(m, n, k, a, b, bias, c, ldc);
  else
    gemm_packed(m, n, k, a, b, bias, c, ldc);
}

void gemm_f32_packed(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                     const float* bias, float* c, std::size_t ldc) {
  gemm_packed(m, n, k, a, b, bias, c, ldc);
}

void gemm_f32_direct(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                     const float* bias, float* c, std::size_t ldc) {
  gemm_direct(m, n, k, a, b, bias, c, ldc);
}

void gemm_f32_dots(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                   const float* bias, float* c, std::size_t ldc) {
  gemm_dots(m, n, k, a, b, bias, c, ldc);
}

}  // namespace headwise
