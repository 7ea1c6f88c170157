#include "attention.hpp"

#include <algorithm>
#include <cmath>

#include "attention_lanes.hpp"
#include "gemm_f32.hpp"
#include "linalg.hpp"
#include "plain_loops.hpp"

namespace headwise::layers {

namespace {

// Where row i of head h of sequence b starts: base + b * seq + h * head + i * row.
struct HeadLayout {
  std::size_t seq, head, row;
  template <typename F>
  F* at(F* base, std::size_t b, std::size_t h, std::size_t i = 0) const {
    return base + b * seq + h * head + i * row;
  }
};
// Query heads (and contexts) split out, (B, H, rows, hd); K/V heads, (B, Hkv, rows, hd).
HeadLayout split_layout(const AttentionShape& s, std::size_t rows) {
  return {s.heads * rows * s.head_dim, rows * s.head_dim, s.head_dim};
}
HeadLayout kv_split_layout(const AttentionShape& s, std::size_t rows) {
  return {s.kv() * rows * s.head_dim, rows * s.head_dim, s.head_dim};
}
// Heads in place, each its hd columns of the (B*rows, C) projections ((B*rows, Ckv) for k, v).
HeadLayout row_layout(const AttentionShape& s, std::size_t rows) {
  return {rows * s.concat(), s.head_dim, s.concat()};
}
HeadLayout kv_row_layout(const AttentionShape& s, std::size_t rows) {
  return {rows * s.kv_concat(), s.head_dim, s.kv_concat()};
}

// The rows of x that get queries: x itself when query_from == 0, else t.xq after gathering.
const float* query_rows(const AttentionShape& s, const float* x, const AttentionTensors& t) {
  return s.query_from == 0 ? x : t.xq;
}

bool rotates(const AttentionShape& s) { return s.position && s.position->rotate; }

// Rotates (or, inverse, rotates back) the vectors of each of `heads` heads, row i sitting at
// position first + i: the one place RoPE enters.
void rotate_heads(const AttentionShape& s, std::size_t heads, float* base, HeadLayout l,
                  std::size_t rows, std::size_t first, bool inverse) {
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t i = 0; i < rows; ++i)
        s.position->rotate(first + i, s.head_dim, l.at(base, b, h, i), inverse);
}

// split and merge copy rows of head_dim floats (3 in the lecture's sweep of 4000 heads, 144,000
// rows per split there): plain loops, not a memcpy call per row.
HEADWISE_PLAIN_LOOPS void copy_heads(const AttentionShape& s, std::size_t heads, std::size_t rows,
                                     const float* from, HeadLayout from_layout, float* to,
                                     HeadLayout to_layout) {
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t h = 0; h < heads; ++h) {
        const float* f = from_layout.at(from, b, h, i);
        float* t = to_layout.at(to, b, h, i);
        for (std::size_t j = 0; j < s.head_dim; ++j) t[j] = f[j];
      }
}

void project(const AttentionShape& s, const AttentionParams& w, const float* x,
             const AttentionTensors& t) {
  const std::size_t B = s.batch, T = s.tokens, D = s.d_model, C = s.concat();
  const std::size_t Ckv = s.kv_concat(), Tq = s.query_tokens(), qf = s.query_from;
  if (qf > 0) {
    for (std::size_t b = 0; b < B; ++b)
      std::copy_n(x + (b * T + qf) * D, Tq * D, t.xq + b * Tq * D);
  }
  matmul(B * Tq, C, D, query_rows(s, x, t), w.wq, w.bq, t.q);
  matmul(B * T, Ckv, D, x, w.wk, w.bk, t.k);
  matmul(B * T, Ckv, D, x, w.wv, w.bv, t.v);
}

void split(const AttentionShape& s, const AttentionTensors& t) {
  const std::size_t T = s.tokens, Tq = s.query_tokens();
  const std::size_t H = s.heads, Hkv = s.kv();
  if (t.q_heads) {
    copy_heads(s, H, T, t.q, row_layout(s, T), t.q_heads, split_layout(s, T));
    for (auto [rows, heads] : {std::pair{t.k, t.k_heads}, {t.v, t.v_heads}})
      copy_heads(s, Hkv, T, rows, kv_row_layout(s, T), heads, kv_split_layout(s, T));
    if (rotates(s)) {
      rotate_heads(s, H, t.q_heads, split_layout(s, T), T, 0, false);
      rotate_heads(s, Hkv, t.k_heads, kv_split_layout(s, T), T, 0, false);
    }
  } else if (rotates(s)) {
    rotate_heads(s, H, t.q, row_layout(s, Tq), Tq, s.query_from, false);
    rotate_heads(s, Hkv, t.k, kv_row_layout(s, T), T, 0, false);
  }
}

// Every (sequence, head) attends on its own (attend_head_f32) to its K/V head, with the kind's
// score bias (ALiBi) if it has one. Many short split heads with nothing kept and K/V heads of
// their own run side by side, one per SIMD lane.
void attend(const AttentionShape& s, const AttentionTensors& t) {
  const std::size_t B = s.batch, T = s.tokens, H = s.heads, hd = s.head_dim;
  const std::size_t Tq = s.query_tokens(), qf = s.query_from;
  const bool split_heads = t.q_heads != nullptr;
  const auto bias = s.position ? s.position->score_bias : nullptr;
  if (split_heads && !t.scores && !t.attention && !bias && is_short_head(T, hd) && s.kv() == H) {
    attend_short_heads_f32(B * H, T, hd, s.causal, t.q_heads, t.k_heads, t.v_heads,
                           t.context_heads);
    return;
  }
  const HeadLayout ql = split_heads ? split_layout(s, Tq) : row_layout(s, Tq);
  const HeadLayout kl = split_heads ? kv_split_layout(s, T) : kv_row_layout(s, T);
  const float* q = split_heads ? t.q_heads : t.q;
  const float* k = split_heads ? t.k_heads : t.k;
  const float* v = split_heads ? t.v_heads : t.v;
  float* context = split_heads ? t.context_heads : t.concat;
  const auto weights = [&](float* all, std::size_t b, std::size_t h) {
    return all ? all + (b * H + h) * Tq * T : nullptr;
  };
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      const HeadInputs in{T,
                          qf,
                          hd,
                          s.causal,
                          ql.at(q, b, h),
                          kl.at(k, b, s.kv_head_of(h)),
                          kl.at(v, b, s.kv_head_of(h)),
                          ql.row,
                          {bias, s.head_offset + h, s.all_heads()},
                          kl.row};
      attend_head_f32(
          in, t.scratch,
          {ql.at(context, b, h), ql.row, weights(t.scores, b, h), weights(t.attention, b, h)});
    }
  }
}

}  // namespace

void attention_stage(Stage stage, const AttentionShape& s, const AttentionParams& w, const float* x,
                     const AttentionTensors& t, float* y) {
  const std::size_t Tq = s.query_tokens();
  switch (stage) {
    case Stage::kProject:
      project(s, w, x, t);
      return;
    case Stage::kSplit:
      split(s, t);
      return;
    case Stage::kAttend:
      attend(s, t);
      return;
    case Stage::kMerge:
      if (t.context_heads)
        copy_heads(s, s.heads, Tq, t.context_heads, split_layout(s, Tq), t.concat,
                   row_layout(s, Tq));
      return;
    case Stage::kOutProject:
      if (s.zero_heads) {
        for (std::size_t h = 0; h < s.heads; ++h)
          if (s.zero_heads[h])
            for (std::size_t r = 0; r < s.batch * Tq; ++r)
              std::fill_n(t.concat + r * s.concat() + h * s.head_dim, s.head_dim, 0.0f);
      }
      matmul(s.batch * Tq, s.d_model, s.concat(), t.concat, w.wout, w.bout, y);
      return;
  }
}

void attention_forward(const AttentionShape& s, const AttentionParams& w, const float* x,
                       const AttentionTensors& t, float* y) {
  for (Stage stage : kStages) attention_stage(stage, s, w, x, t, y);
}

void fill_score_bias(const AttentionShape& s, float* bias) {
  const std::size_t T = s.tokens;
  for (std::size_t h = 0; h < s.heads; ++h)
    for (std::size_t i = 0; i < T; ++i)
      for (std::size_t j = 0; j < T; ++j)
        bias[(h * T + i) * T + j] = s.position->score_bias(s.head_offset + h, s.all_heads(), i, j);
}

void attention_backward(const AttentionShape& s, const AttentionParams& w, const float* x,
                        const AttentionTensors& tape, const float* dy, const AttentionGrads& g,
                        const AttentionScratch& scratch, float* dx, float* dx_query) {
  const std::size_t B = s.batch, T = s.tokens, D = s.d_model, H = s.heads, hd = s.head_dim;
  const std::size_t C = s.concat(), Ckv = s.kv_concat(), Tq = s.query_tokens(), qf = s.query_from;
  const std::size_t rows = B * T, qrows = B * Tq, group = s.group();
  matmul_at_b(C, D, qrows, tape.concat, dy, g.wout);
  if (g.bout) column_sums(qrows, D, dy, g.bout);
  matmul_a_bt(qrows, C, D, dy, w.wout, scratch.dconcat);
  // Per (sequence, head), with dS in scratch.scores (Tq x T): dP = dctx_h v_h^T,
  // dv_h = P^T dctx_h, dS = P (dP - rowsum(P dP)) scale (zero past each row's last key),
  // dq_h = dS k_h, dk_h = dS^T q_h. Every (b, h) block of dq is written once; a K/V head's
  // blocks of dk, dv are written by the first query head of its group and added to by the others
  // (with K/V heads of their own, group 1: written once).
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  float* ds = scratch.scores;
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t keys = b * T * Ckv + s.kv_head_of(h) * hd, queries = b * Tq * C + h * hd;
      const float beta = h % group == 0 ? 0.0f : 1.0f;
      const float* p = tape.attention + (b * H + h) * Tq * T;
      gemm_f32(Trans::kNo, Trans::kYes, Tq, T, hd, 1.0f, scratch.dconcat + queries, C,
               tape.v + keys, Ckv, 0.0f, ds, T);
      gemm_f32(Trans::kYes, Trans::kNo, T, hd, Tq, 1.0f, p, T, scratch.dconcat + queries, C, beta,
               scratch.dv + keys, Ckv);
      for (std::size_t i = 0; i < Tq; ++i) {
        const std::size_t last = s.causal ? qf + i : T - 1;
        const float* pi = p + i * T;
        float* di = ds + i * T;
        float weighted = 0.0f;
        for (std::size_t j = 0; j <= last; ++j) weighted += pi[j] * di[j];
        for (std::size_t j = 0; j <= last; ++j) di[j] = pi[j] * (di[j] - weighted) * scale;
        std::fill(di + last + 1, di + T, 0.0f);
      }
      gemm_f32(Trans::kNo, Trans::kNo, Tq, hd, T, 1.0f, ds, T, tape.k + keys, Ckv, 0.0f,
               scratch.dq + queries, C);
      gemm_f32(Trans::kYes, Trans::kNo, T, hd, Tq, 1.0f, ds, T, tape.q + queries, C, beta,
               scratch.dk + keys, Ckv);
    }
  }
  if (rotates(s)) {  // back from the rotated q and k to the projections' outputs
    rotate_heads(s, H, scratch.dq, row_layout(s, Tq), Tq, qf, true);
    rotate_heads(s, s.kv(), scratch.dk, kv_row_layout(s, T), T, 0, true);
  }
  const float* xq = query_rows(s, x, tape);
  matmul_at_b(D, C, qrows, xq, scratch.dq, g.wq);
  if (g.bq) column_sums(qrows, C, scratch.dq, g.bq);
  matmul_at_b(D, Ckv, rows, x, scratch.dk, g.wk);
  if (g.bk) column_sums(rows, Ckv, scratch.dk, g.bk);
  matmul_at_b(D, Ckv, rows, x, scratch.dv, g.wv);
  if (g.bv) column_sums(rows, Ckv, scratch.dv, g.bv);
  matmul_a_bt(rows, D, Ckv, scratch.dk, w.wk, dx);
  matmul_a_bt(rows, D, Ckv, scratch.dv, w.wv, dx, true);
  matmul_a_bt(qrows, D, C, scratch.dq, w.wq, dx_query, true);
}

}  // namespace headwise::layers
