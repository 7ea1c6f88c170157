// The rows path of attend_head_f32: whole score rows, written out when asked for (see
// attention_head.hpp). Per block of query rows: S = scale q k^T over the keys the block sees
// (one GEMM), the bias and each row's softmax, then context = P v (one GEMM).
#include <algorithm>
#include <cmath>
#include <limits>

#include "attention_head.hpp"
#include "gemm_f32.hpp"

namespace headwise {

namespace {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
// Query rows per block: a training layer's whole sequence (T <= 64) is one block; longer
// sequences skip the keys above each block's causal diagonal.
constexpr std::size_t kRowBlock = 64;

}  // namespace

void attend_head_rows_f32(const HeadInputs& in, HeadScratch scratch, HeadOutputs out) {
  const std::size_t T = in.tokens, Tq = in.query_tokens(), qf = in.query_from;
  const std::size_t hd = in.head_dim, ld = in.ld, kv_ld = in.kv_stride();
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  // P's rows go to the caller's attention rows, or a block at a time to the scratch.
  const std::size_t block =
      out.attention ? kRowBlock : std::min(kRowBlock, head_scratch_floats(T, hd) / T);
  for (std::size_t i0 = 0; i0 < Tq; i0 += block) {
    const std::size_t rows = std::min(block, Tq - i0);
    const std::size_t end = in.causal ? qf + i0 + rows : T;  // keys this block sees
    float* p = out.attention ? out.attention + i0 * T : scratch.data;
    gemm_f32(Trans::kNo, Trans::kYes, rows, end, hd, scale, in.q + i0 * ld, ld, in.k, kv_ld, 0.0f,
             p, T);
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t pos = qf + i0 + r, visible = in.causal ? pos + 1 : T;
      float* row = p + r * T;
      if (in.bias.fn) {
        for (std::size_t j = 0; j < visible; ++j)
          row[j] += in.bias.fn(in.bias.head, in.bias.heads, pos, j);
      }
      if (out.scores) {
        float* s = out.scores + (i0 + r) * T;
        std::copy(row, row + visible, s);
        std::fill(s + visible, s + T, kMinusInf);
      }
      softmax_row_f32(row, visible);
      std::fill(row + visible, row + (out.attention ? T : end), 0.0f);
    }
    gemm_f32(Trans::kNo, Trans::kNo, rows, hd, end, 1.0f, p, T, in.v, kv_ld, 0.0f,
             out.context + i0 * out.context_stride, out.context_stride);
  }
}

}  // namespace headwise
