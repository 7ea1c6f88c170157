#include "mlp.hpp"

#include <algorithm>
#include <cmath>

#include "linalg.hpp"

namespace headwise::layers {

namespace {

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;

float gelu(float z) { return 0.5f * z * (1.0f + std::erf(z * kInvSqrt2)); }
// d/dz z Phi(z) = Phi(z) + z phi(z)
float gelu_slope(float z) {
  return 0.5f * (1.0f + std::erf(z * kInvSqrt2)) + z * kInvSqrt2Pi * std::exp(-0.5f * z * z);
}

}  // namespace

void mlp_forward(const MlpShape& s, const MlpParams& w, const float* x, float* z, float* r,
                 float* y) {
  const std::size_t n = s.rows * s.hidden;
  matmul(s.rows, s.hidden, s.width, x, w.w1, w.b1, z);
  if (s.activation == Activation::kGelu) {
    for (std::size_t i = 0; i < n; ++i) r[i] = gelu(z[i]);
  } else {
    for (std::size_t i = 0; i < n; ++i) r[i] = std::max(z[i], 0.0f);
  }
  matmul(s.rows, s.width, s.hidden, r, w.w2, w.b2, y);
}

void mlp_backward(const MlpShape& s, const MlpParams& w, const float* x, const float* z,
                  const float* r, const float* dy, const MlpGrads& g, float* dr, float* dx) {
  const std::size_t n = s.rows * s.hidden;
  matmul_at_b(s.hidden, s.width, s.rows, r, dy, g.w2);
  if (g.b2) column_sums(s.rows, s.width, dy, g.b2);
  matmul_a_bt(s.rows, s.hidden, s.width, dy, w.w2, dr);
  if (s.activation == Activation::kGelu) {
    for (std::size_t i = 0; i < n; ++i) dr[i] *= gelu_slope(z[i]);
  } else {
    for (std::size_t i = 0; i < n; ++i) dr[i] = z[i] > 0.0f ? dr[i] : 0.0f;
  }
  matmul_at_b(s.width, s.hidden, s.rows, x, dr, g.w1);
  if (g.b1) column_sums(s.rows, s.hidden, dr, g.b1);
  matmul_a_bt(s.rows, s.width, s.hidden, dr, w.w1, dx, true);
}

}  // namespace headwise::layers
