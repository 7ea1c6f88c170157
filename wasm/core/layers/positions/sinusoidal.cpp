// Sinusoidal positions (Vaswani et al. 2017), added to x0[t]:
//   PE(t, 2i) = sin(t / 10000^(2i / D)),  PE(t, 2i + 1) = cos(t / 10000^(2i / D)).
#include <cmath>

#include "position_kind.hpp"

namespace headwise::layers {

namespace {

void add_sinusoid(std::size_t t, std::size_t d_model, float* row) {
  for (std::size_t d = 0; d < d_model; ++d) {
    const double pair = static_cast<double>(d - d % 2);
    const double angle = static_cast<double>(t) / std::pow(10000.0, pair / double(d_model));
    row[d] += static_cast<float>(d % 2 == 0 ? std::sin(angle) : std::cos(angle));
  }
}

}  // namespace

extern const PositionKind kSinusoidalPositions{
    "sinusoidal", "sinusoidal", "input", false,
    add_sinusoid, nullptr,      nullptr, "Vaswani et al. 2017: sin and cos of t / 10000^(2i/d)"};

}  // namespace headwise::layers
