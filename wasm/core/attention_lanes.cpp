#include "attention_lanes.hpp"

#include <cmath>
#include <limits>
#include <xsimd/xsimd.hpp>

#include "attention_head.hpp"
#include "exp_f32.hpp"

namespace headwise {

namespace {

using Batch = xsimd::batch<float>;
constexpr std::size_t kLanes = Batch::size;
constexpr std::size_t kMaxElements = kShortTokens * kShortHeadDim;  // one head's T x hd, at most

// to[e * kLanes + l] = from[l * n + e]: kLanes heads of n floats each, interleaved element by
// element so that one vector load gives element e of every head.
void interleave(std::size_t n, const float* from, float* to) {
  for (std::size_t l = 0; l < kLanes; ++l)
    for (std::size_t e = 0; e < n; ++e) to[e * kLanes + l] = from[l * n + e];
}

void deinterleave(std::size_t n, const float* from, float* to) {
  for (std::size_t l = 0; l < kLanes; ++l)
    for (std::size_t e = 0; e < n; ++e) to[l * n + e] = from[e * kLanes + l];
}

// kLanes heads, interleaved: the short kernel's arithmetic with every scalar a vector of heads.
void attend_group(std::size_t tokens, std::size_t hd, bool causal, const float* q, const float* k,
                  const float* v, float* context) {
  // Scores in base 2 (times log2(e)), for exp2_nonpositive_f32: the same softmax.
  const Batch scale_by(1.44269504088896341f / std::sqrt(static_cast<float>(hd)));
  Batch p[kShortTokens];
  for (std::size_t i = 0; i < tokens; ++i) {
    const std::size_t visible = causal ? i + 1 : tokens;
    const float* qi = q + i * hd * kLanes;
    Batch max(-std::numeric_limits<float>::infinity());
    for (std::size_t j = 0; j < visible; ++j) {
      const float* kj = k + j * hd * kLanes;
      Batch dot = Batch::load_aligned(qi) * Batch::load_aligned(kj);
      for (std::size_t d = 1; d < hd; ++d) {
        const Batch qd = Batch::load_aligned(qi + d * kLanes);
        dot = xsimd::fma(qd, Batch::load_aligned(kj + d * kLanes), dot);
      }
      p[j] = dot * scale_by;
      max = xsimd::max(max, p[j]);
    }
    Batch total(0.0f);
    for (std::size_t j = 0; j < visible; ++j) total += p[j] = exp2_nonpositive_f32(p[j] - max);
    const Batch inv_total = Batch(1.0f) / total;
    for (std::size_t d = 0; d < hd; ++d) {
      Batch sum(0.0f);
      for (std::size_t j = 0; j < visible; ++j)
        sum = xsimd::fma(p[j], Batch::load_aligned(v + (j * hd + d) * kLanes), sum);
      (sum * inv_total).store_aligned(context + (i * hd + d) * kLanes);
    }
  }
}

}  // namespace

void attend_short_heads_f32(std::size_t pairs, std::size_t tokens, std::size_t hd, bool causal,
                            const float* q, const float* k, const float* v, float* context) {
  const std::size_t n = tokens * hd;
  alignas(64) float qs[kMaxElements * kLanes], ks[kMaxElements * kLanes], vs[kMaxElements * kLanes],
      cs[kMaxElements * kLanes];
  std::size_t pair = 0;
  for (; pair + kLanes <= pairs; pair += kLanes) {
    const std::size_t at = pair * n;
    interleave(n, q + at, qs);
    interleave(n, k + at, ks);
    interleave(n, v + at, vs);
    attend_group(tokens, hd, causal, qs, ks, vs, cs);
    deinterleave(n, cs, context + at);
  }
  for (; pair < pairs; ++pair) {
    const std::size_t at = pair * n;
    attend_head_short_f32(tokens, hd, causal, q + at, k + at, v + at, context + at, hd);
  }
}

}  // namespace headwise
