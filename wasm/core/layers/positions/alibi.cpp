// ALiBi (Press et al. 2022): no position enters x, q, k or v; head h (of H) adds
// -m_h * |i - j| to its scaled score of query i on key j, with slopes m_h = 2^(-8 (h + 1) / H),
// so each head fades distant words at its own rate.
#include <cmath>

#include "position_kind.hpp"

namespace headwise::layers {

namespace {

float linear_bias(std::size_t h, std::size_t heads, std::size_t i, std::size_t j) {
  const double slope = std::exp2(-8.0 * double(h + 1) / double(heads));
  return static_cast<float>(-slope * std::fabs(double(i) - double(j)));
}

}  // namespace

extern const PositionKind kAlibiPositions{"alibi",
                                          "ALiBi",
                                          "scores",
                                          false,
                                          nullptr,
                                          nullptr,
                                          linear_bias,
                                          "Press et al. 2022: head h of H adds -m_h |i - j| to its "
                                          "scores, slopes m_h = 2^(-8h/H)"};

}  // namespace headwise::layers
