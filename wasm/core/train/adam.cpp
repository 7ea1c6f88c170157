#include "adam.hpp"

#include <cmath>

namespace headwise::train {

float warmup_rate(const AdamConfig& c, long t) {
  if (c.warmup <= 0 || t >= c.warmup) return c.learning_rate;
  return static_cast<float>(static_cast<double>(c.learning_rate) * t / c.warmup);
}

void adam_step(const AdamConfig& c, long t, std::size_t n, float* params, const float* grads,
               float* m, float* v) {
  const float lr = warmup_rate(c, t);
  const float step_size = static_cast<float>(lr / (1.0 - std::pow(double(c.beta1), double(t))));
  const float root_correction2 =
      static_cast<float>(std::sqrt(1.0 - std::pow(double(c.beta2), double(t))));
  const float decay = 1.0f - lr * c.weight_decay;
  const float b1 = c.beta1, b2 = c.beta2, a1 = 1.0f - c.beta1, a2 = 1.0f - c.beta2;
  for (std::size_t i = 0; i < n; ++i) {
    const float g = grads[i];
    m[i] = b1 * m[i] + a1 * g;
    v[i] = b2 * v[i] + a2 * g * g;
    const float denom = std::sqrt(v[i]) / root_correction2 + c.eps;
    params[i] = params[i] * decay - step_size * m[i] / denom;
  }
}

}  // namespace headwise::train
