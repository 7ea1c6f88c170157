// Adam(W) with linear warm-up, over a whole parameter buffer:
//   lr_t = lr * min(1, t / warmup)            (t = 1, 2, ... counts updates; warmup 0 = none)
//   m = b1 m + (1 - b1) g,  v = b2 v + (1 - b2) g^2
//   p -= lr_t * weight_decay * p              (decoupled, AdamW; 0 = plain Adam)
//   p -= (lr_t / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)     (PyTorch's form)
#pragma once

#include <cstddef>

namespace headwise::train {

struct AdamConfig {
  float learning_rate = 3e-3f;
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weight_decay = 0.0f;
  long warmup = 100;
};

float warmup_rate(const AdamConfig& c, long t);

void adam_step(const AdamConfig& c, long t, std::size_t n, float* params, const float* grads,
               float* m, float* v);

}  // namespace headwise::train
