#include "layernorm.hpp"

#include <algorithm>
#include <cmath>

namespace headwise::layers {

void layernorm_forward(std::size_t rows, std::size_t width, const float* x, const float* gain,
                       const float* bias, float* y, float* mean, float* rstd) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * width;
    float m = 0.0f;
    for (std::size_t i = 0; i < width; ++i) m += xr[i];
    m /= static_cast<float>(width);
    float var = 0.0f;
    for (std::size_t i = 0; i < width; ++i) var += (xr[i] - m) * (xr[i] - m);
    var /= static_cast<float>(width);
    const float s = 1.0f / std::sqrt(var + kLayerNormEps);
    float* yr = y + r * width;
    for (std::size_t i = 0; i < width; ++i) yr[i] = (xr[i] - m) * s * gain[i] + bias[i];
    mean[r] = m;
    rstd[r] = s;
  }
}

// With n = (x - mean) rstd and g = dy * gain:  dx = rstd (g - mean(g) - n mean(g n)).
void layernorm_backward(std::size_t rows, std::size_t width, const float* x, const float* gain,
                        const float* mean, const float* rstd, const float* dy, float* dx,
                        float* dgain, float* dbias) {
  std::fill_n(dgain, width, 0.0f);
  std::fill_n(dbias, width, 0.0f);
  const float inv_width = 1.0f / static_cast<float>(width);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * width;
    const float* dyr = dy + r * width;
    float g_mean = 0.0f, gn_mean = 0.0f;
    for (std::size_t i = 0; i < width; ++i) {
      const float n = (xr[i] - mean[r]) * rstd[r];
      const float g = dyr[i] * gain[i];
      g_mean += g;
      gn_mean += g * n;
      dgain[i] += dyr[i] * n;
      dbias[i] += dyr[i];
    }
    g_mean *= inv_width;
    gn_mean *= inv_width;
    float* dxr = dx + r * width;
    for (std::size_t i = 0; i < width; ++i) {
      const float n = (xr[i] - mean[r]) * rstd[r];
      dxr[i] += rstd[r] * (dyr[i] * gain[i] - g_mean - n * gn_mean);
    }
  }
}

}  // namespace headwise::layers
