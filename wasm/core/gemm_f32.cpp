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
// Few columns (n < kNr) over at least this long a k: dot products along k (gemm_dots).
constexpr std::size_t kDotsMinDepth = 8 * kWidth;
// Up to this many columns A is read in place (gemm_direct) whatever the size: each packed entry
// of A would serve only n / kWidth vector multiply-adds, fewer than packing it costs. Measured
// (bench/gemm-small.mjs, CPU time): one head's context product of the induction step, 64 x 64 x
// 16, 20-32 GFLOP/s packed against 39-43 direct in every transpose form.
constexpr std::size_t kDirectMaxColumns = 2 * kNr;

// Packing scratch. The core is single-threaded (wasm threads would need cross-origin isolation,
// which a page framed by a slide deck cannot have), so one static pair of panels serves every call
// and packing never allocates.
alignas(64) float packed_a[kMc * kKc];
alignas(64) float packed_b[kKc * kNc];

bool transposed(Trans t) { return t == Trans::kYes; }

// Address of op(X)[row][col] for X stored as op(X) (kNo) or as its transpose (kYes).
const float* element(const float* x, std::size_t ld, bool trans, std::size_t row, std::size_t col) {
  return trans ? x + col * ld + row : x + row * ld + col;
}

// How a finished sum over one block of k reaches C. The first block writes alpha sum + beta C +
// bias and reads C only when beta is not 0; later blocks add alpha sum to what the first wrote.
struct Epilogue {
  float alpha;
  float beta;
  const float* bias;  // at column 0 of the columns being stored, or null
  bool first;

  Epilogue at_column(std::size_t j) const {
    return {alpha, beta, bias ? bias + j : nullptr, first};
  }
  float scalar(float sum, const float* c, std::size_t j) const {
    if (!first) return *c + alpha * sum;
    float out = alpha * sum;
    if (beta != 0.0f) out += beta * *c;
    if (bias) out += bias[j];
    return out;
  }
  Batch vector(const Batch& sum, const float* c, std::size_t j) const {
    const Batch scaled = Batch(alpha) * sum;
    if (!first) return Batch::load_unaligned(c) + scaled;
    Batch out = scaled;
    if (beta != 0.0f) out = xsimd::fma(Batch(beta), Batch::load_unaligned(c), out);
    if (bias) out += Batch::load_unaligned(bias + j);
    return out;
  }
};

// C = beta C + bias, C not read when beta is 0: the whole product when alpha or k is 0, and the
// start of the dot-product path.
void start_c(const GemmArgs& g) {
  for (std::size_t i = 0; i < g.m; ++i) {
    float* row = g.c + i * g.ldc;
    for (std::size_t j = 0; j < g.n; ++j) {
      const float kept = g.beta != 0.0f ? g.beta * row[j] : 0.0f;
      row[j] = g.bias ? kept + g.bias[j] : kept;
    }
  }
}

// packed (kc x kNr per panel, panels kNr apart in columns) <- op(B)[0..kc, 0..n), zero padded;
// b points at op(B)[0][0]. A transposed B is read along its rows (op(B)'s columns).
void pack_b(bool trans, std::size_t kc, std::size_t n, const float* b, std::size_t ldb,
            float* out) {
  for (std::size_t j = 0; j < n; j += kNr, out += kc * kNr) {
    const std::size_t w = std::min(kNr, n - j);
    if (trans) {
      for (std::size_t c = 0; c < w; ++c) {
        const float* column = b + (j + c) * ldb;
        for (std::size_t p = 0; p < kc; ++p) out[p * kNr + c] = column[p];
      }
      for (std::size_t c = w; c < kNr; ++c)
        for (std::size_t p = 0; p < kc; ++p) out[p * kNr + c] = 0.0f;
    } else if (w == kNr) {
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

// packed (kc x kMr per panel, interleaved by k) <- op(A)[0..m, 0..kc), zero padded; a points at
// op(A)[0][0]. A transposed A already holds each k step's kMr values side by side.
void pack_a(bool trans, std::size_t m, std::size_t kc, const float* a, std::size_t lda,
            float* out) {
  for (std::size_t i = 0; i < m; i += kMr, out += kc * kMr) {
    const std::size_t h = std::min(kMr, m - i);
    if (trans) {
      for (std::size_t p = 0; p < kc; ++p) {
        std::size_t r = 0;
        for (; r < h; ++r) out[p * kMr + r] = a[p * lda + i + r];
        for (; r < kMr; ++r) out[p * kMr + r] = 0.0f;
      }
      continue;
    }
    for (std::size_t r = 0; r < h; ++r)
      for (std::size_t p = 0; p < kc; ++p) out[p * kMr + r] = a[(i + r) * lda + p];
    for (std::size_t r = h; r < kMr; ++r)
      for (std::size_t p = 0; p < kc; ++p) out[p * kMr + r] = 0.0f;
  }
}

// C tile (kMr x kNr) <- packed A panel @ packed B panel over kc, through the epilogue. The
// caller's tile may be partial: rows x cols.
void micro_4x2v(std::size_t kc, const float* ap, const float* bp, const Epilogue& e, float* c,
                std::size_t ldc, std::size_t rows, std::size_t cols) {
  TileAccumulators acc;
  for (std::size_t r = 0; r < kMr; ++r)
    for (std::size_t v = 0; v < kTileVectors; ++v) acc[r][v] = Batch(0.0f);
  multiply_add_4x2v(kc, ap, bp, acc);
  if (rows == kMr && cols == kNr) {
    for (std::size_t r = 0; r < kMr; ++r)
      for (std::size_t v = 0; v < kTileVectors; ++v) {
        float* out = c + r * ldc + v * kWidth;
        e.vector(acc[r][v], out, v * kWidth).store_unaligned(out);
      }
    return;
  }
  alignas(64) float tile[kMr * kNr];
  for (std::size_t r = 0; r < kMr; ++r)
    for (std::size_t v = 0; v < kTileVectors; ++v)
      acc[r][v].store_aligned(tile + r * kNr + v * kWidth);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < cols; ++j)
      c[r * ldc + j] = e.scalar(tile[r * kNr + j], c + r * ldc + j, j);
}

void gemm_packed(const GemmArgs& g) {
  const bool ta = transposed(g.trans_a), tb = transposed(g.trans_b);
  for (std::size_t jc = 0; jc < g.n; jc += kNc) {
    const std::size_t nc = std::min(kNc, g.n - jc);
    for (std::size_t pc = 0; pc < g.k; pc += kKc) {
      const std::size_t kc = std::min(kKc, g.k - pc);
      const Epilogue e{g.alpha, g.beta, g.bias, pc == 0};
      pack_b(tb, kc, nc, element(g.b, g.ldb, tb, pc, jc), g.ldb, packed_b);
      for (std::size_t ic = 0; ic < g.m; ic += kMc) {
        const std::size_t mc = std::min(kMc, g.m - ic);
        pack_a(ta, mc, kc, element(g.a, g.lda, ta, ic, pc), g.lda, packed_a);
        for (std::size_t jr = 0; jr < nc; jr += kNr) {
          const std::size_t cols = std::min(kNr, nc - jr);
          const float* bp = packed_b + jr * kc;
          const Epilogue ej = e.at_column(jc + jr);
          for (std::size_t ir = 0; ir < mc; ir += kMr) {
            micro_4x2v(kc, packed_a + ir * kc, bp, ej, g.c + (ic + ir) * g.ldc + jc + jr, g.ldc,
                       std::min(kMr, mc - ir), cols);
          }
        }
      }
    }
  }
}

// Unpacked path for small products: B's rows read in place, whole k per tile, A's entries
// broadcast from wherever they are stored (a points at op(A)[0][0]).
template <bool kTransA>
float a_at(const float* a, std::size_t lda, std::size_t r, std::size_t p) {
  return kTransA ? a[p * lda + r] : a[r * lda + p];
}

template <bool kTransA, std::size_t kRows, std::size_t kVectors>
void tile(std::size_t k, const float* a, std::size_t lda, const float* b, std::size_t ldb,
          const Epilogue& e, float* c, std::size_t ldc) {
  Batch acc[kRows][kVectors];
  for (std::size_t r = 0; r < kRows; ++r)
    for (std::size_t v = 0; v < kVectors; ++v) acc[r][v] = Batch(0.0f);
  for (std::size_t p = 0; p < k; ++p) {
    Batch bv[kVectors];
    for (std::size_t v = 0; v < kVectors; ++v)
      bv[v] = Batch::load_unaligned(b + p * ldb + v * kWidth);
    for (std::size_t r = 0; r < kRows; ++r) {
      const Batch av(a_at<kTransA>(a, lda, r, p));
      for (std::size_t v = 0; v < kVectors; ++v) acc[r][v] = xsimd::fma(av, bv[v], acc[r][v]);
    }
  }
  for (std::size_t r = 0; r < kRows; ++r)
    for (std::size_t v = 0; v < kVectors; ++v) {
      float* out = c + r * ldc + v * kWidth;
      e.vector(acc[r][v], out, v * kWidth).store_unaligned(out);
    }
}

// Columns left over after the vector tiles, one row and one column at a time.
template <bool kTransA>
void scalar_columns(std::size_t rows, std::size_t j0, std::size_t n, std::size_t k, const float* a,
                    std::size_t lda, const float* b, std::size_t ldb, const Epilogue& e, float* c,
                    std::size_t ldc) {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = j0; j < n; ++j) {
      float sum = 0.0f;
      for (std::size_t p = 0; p < k; ++p) sum += a_at<kTransA>(a, lda, r, p) * b[p * ldb + j];
      c[r * ldc + j] = e.scalar(sum, c + r * ldc + j, j);
    }
  }
}

template <bool kTransA, std::size_t kRows>
void row_block(std::size_t n, std::size_t k, const float* a, std::size_t lda, const float* b,
               std::size_t ldb, const Epilogue& e, float* c, std::size_t ldc) {
  std::size_t j = 0;
  for (; j + 2 * kWidth <= n; j += 2 * kWidth)
    tile<kTransA, kRows, 2>(k, a, lda, b + j, ldb, e.at_column(j), c + j, ldc);
  for (; j + kWidth <= n; j += kWidth)
    tile<kTransA, kRows, 1>(k, a, lda, b + j, ldb, e.at_column(j), c + j, ldc);
  if (j < n) scalar_columns<kTransA>(kRows, j, n, k, a, lda, b, ldb, e, c, ldc);
}

// B stored k x n, read in place.
template <bool kTransA>
void direct_in_place(std::size_t m, std::size_t n, std::size_t k, const float* a, std::size_t lda,
                     const float* b, std::size_t ldb, const Epilogue& e, float* c,
                     std::size_t ldc) {
  std::size_t i = 0;
  for (; i + 4 <= m; i += 4)
    row_block<kTransA, 4>(n, k, element(a, lda, kTransA, i, 0), lda, b, ldb, e, c + i * ldc, ldc);
  for (; i < m; ++i)
    row_block<kTransA, 1>(n, k, element(a, lda, kTransA, i, 0), lda, b, ldb, e, c + i * ldc, ldc);
}

void direct_any_a(bool ta, std::size_t m, std::size_t n, std::size_t k, const float* a,
                  std::size_t lda, const float* b, std::size_t ldb, const Epilogue& e, float* c,
                  std::size_t ldc) {
  if (ta)
    direct_in_place<true>(m, n, k, a, lda, b, ldb, e, c, ldc);
  else
    direct_in_place<false>(m, n, k, a, lda, b, ldb, e, c, ldc);
}

// A transposed B has no contiguous rows of op(B) to load as vectors: it is copied kKc x kNc at a
// time into the packing buffer as op(B), row-major, and read there.
void gemm_direct(const GemmArgs& g) {
  const bool ta = transposed(g.trans_a);
  if (!transposed(g.trans_b)) {
    direct_any_a(ta, g.m, g.n, g.k, g.a, g.lda, g.b, g.ldb, {g.alpha, g.beta, g.bias, true}, g.c,
                 g.ldc);
    return;
  }
  for (std::size_t jc = 0; jc < g.n; jc += kNc) {
    const std::size_t nc = std::min(kNc, g.n - jc);
    for (std::size_t pc = 0; pc < g.k; pc += kKc) {
      const std::size_t kc = std::min(kKc, g.k - pc);
      for (std::size_t j = 0; j < nc; ++j)
        for (std::size_t p = 0; p < kc; ++p) packed_b[p * nc + j] = g.b[(jc + j) * g.ldb + pc + p];
      const Epilogue e{g.alpha, g.beta, g.bias ? g.bias + jc : nullptr, pc == 0};
      direct_any_a(ta, g.m, nc, kc, element(g.a, g.lda, ta, 0, pc), g.lda, packed_b, nc, e,
                   g.c + jc, g.ldc);
    }
  }
}

// Few columns (n < kNr) over a long k, as in the out-projection of thousands of tiny heads onto a
// narrow width: tiles along n would be mostly padding, so each C entry is a dot product along k
// instead, on op(B)'s columns copied kKc rows at a time into the packing buffer. A transposed A
// is copied the same way, kMc rows at a time, so that its rows run along k too.
template <std::size_t kRows>
void dots(std::size_t kc, const float* a, std::size_t lda, const float* column, float alpha,
          float* c, std::size_t ldc) {
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
    c[r * ldc] += alpha * sum;
  }
}

void gemm_dots(const GemmArgs& g) {
  static_assert(kNr * kKc <= kKc * kNc, "n < kNr columns of kKc fit the packing buffer");
  const bool ta = transposed(g.trans_a), tb = transposed(g.trans_b);
  start_c(g);
  for (std::size_t pc = 0; pc < g.k; pc += kKc) {
    const std::size_t kc = std::min(kKc, g.k - pc);
    // Up to kNr columns per block; wider n (a pinned call) takes several blocks of columns.
    for (std::size_t jc = 0; jc < g.n; jc += kNr) {
      const std::size_t nc = std::min(kNr, g.n - jc);
      for (std::size_t j = 0; j < nc; ++j)
        for (std::size_t p = 0; p < kc; ++p)
          packed_b[j * kKc + p] = *element(g.b, g.ldb, tb, pc + p, jc + j);
      for (std::size_t ic = 0; ic < g.m; ic += kMc) {
        const std::size_t mc = std::min(kMc, g.m - ic);
        const float* a = g.a + ic * g.lda + pc;
        std::size_t lda = g.lda;
        if (ta) {
          for (std::size_t p = 0; p < kc; ++p)
            for (std::size_t r = 0; r < mc; ++r)
              packed_a[r * kKc + p] = g.a[(pc + p) * g.lda + ic + r];
          a = packed_a;
          lda = kKc;
        }
        float* c = g.c + ic * g.ldc + jc;
        std::size_t i = 0;
        for (; i + 4 <= mc; i += 4)
          for (std::size_t j = 0; j < nc; ++j)
            dots<4>(kc, a + i * lda, lda, packed_b + j * kKc, g.alpha, c + i * g.ldc + j, g.ldc);
        for (; i < mc; ++i)
          for (std::size_t j = 0; j < nc; ++j)
            dots<1>(kc, a + i * lda, lda, packed_b + j * kKc, g.alpha, c + i * g.ldc + j, g.ldc);
      }
    }
  }
}

GemmPath choose(std::size_t m, std::size_t n, std::size_t k) {
  if (n < kNr && k >= kDotsMinDepth) return GemmPath::kDots;
  if (m * n * k < kPackedMinWork || n <= kDirectMaxColumns) return GemmPath::kDirect;
  return GemmPath::kPacked;
}

GemmArgs forward(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                 const float* bias, float* c, std::size_t ldc) {
  return {Trans::kNo, Trans::kNo, m,        n,    k, 1.0f, a.data,
          a.stride,   b.data,     b.stride, 0.0f, c, ldc,  bias};
}

}  // namespace

void gemm_f32(const GemmArgs& args, GemmPath path) {
  if (args.m == 0 || args.n == 0) return;
  if (args.k == 0 || args.alpha == 0.0f) {
    start_c(args);
    return;
  }
  if (path == GemmPath::kChosen) path = choose(args.m, args.n, args.k);
  if (path == GemmPath::kDots)
    gemm_dots(args);
  else if (path == GemmPath::kDirect)
    gemm_direct(args);
  else
    gemm_packed(args);
}

void gemm_f32(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
              const float* bias, float* c, std::size_t ldc) {
  gemm_f32(forward(m, n, k, a, b, bias, c, ldc));
}

void gemm_f32_packed(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                     const float* bias, float* c, std::size_t ldc) {
  gemm_f32(forward(m, n, k, a, b, bias, c, ldc), GemmPath::kPacked);
}

void gemm_f32_direct(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                     const float* bias, float* c, std::size_t ldc) {
  gemm_f32(forward(m, n, k, a, b, bias, c, ldc), GemmPath::kDirect);
}

void gemm_f32_dots(std::size_t m, std::size_t n, std::size_t k, MatrixView a, MatrixView b,
                   const float* bias, float* c, std::size_t ldc) {
  gemm_f32(forward(m, n, k, a, b, bias, c, ldc), GemmPath::kDots);
}

}  // namespace headwise
