// LayerNorm over the last dimension: y = (x - mean) / sqrt(var + 1e-5) * gain + bias, with the
// biased variance (PyTorch's nn.LayerNorm). The tape keeps each row's mean and 1/std.
#pragma once

#include <cstddef>

namespace headwise::layers {

constexpr float kLayerNormEps = 1e-5f;

void layernorm_forward(std::size_t rows, std::size_t width, const float* x, const float* gain,
                       const float* bias, float* y, float* mean, float* rstd);

// dgain and dbias are overwritten; dx is ADDED to (a residual's gradient may already be there).
void layernorm_backward(std::size_t rows, std::size_t width, const float* x, const float* gain,
                        const float* mean, const float* rstd, const float* dy, float* dx,
                        float* dgain, float* dbias);

}  // namespace headwise::layers
