// The block's MLP: y = act(x W1 + b1) W2 + b2, act ReLU or GELU (the exact erf form, PyTorch's
// nn.GELU default). The tape keeps the pre-activation z and the activation r.
#pragma once

#include <cstddef>

#include "model_spec.hpp"

namespace headwise::layers {

struct MlpShape {
  std::size_t rows, width, hidden;
  Activation activation;
};
struct MlpParams {
  const float *w1, *b1, *w2, *b2;  // biases may be null
};
struct MlpGrads {
  float *w1, *b1, *w2, *b2;
};

void mlp_forward(const MlpShape& s, const MlpParams& w, const float* x, float* z, float* r,
                 float* y);

// Gradients overwritten; dr is scratch (rows, hidden); dx is ADDED to.
void mlp_backward(const MlpShape& s, const MlpParams& w, const float* x, const float* z,
                  const float* r, const float* dy, const MlpGrads& g, float* dr, float* dx);

}  // namespace headwise::layers
