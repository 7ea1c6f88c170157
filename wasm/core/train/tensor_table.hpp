// The classifier's tensors as a table, one row per tensor: its parameters, their gradients and
// Adam's two moments. Each role lives in one contiguous float buffer with the same layout, so a
// gradient or moment row has the offset of its parameter row and Adam runs over whole buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace headwise::train {

enum class Role { kParameter = 0, kGradient = 1, kAdamM = 2, kAdamV = 3 };
constexpr int kRoleCount = 4;

// How a parameter starts: Linear weights and biases uniform in +-1/sqrt(fan_in) (PyTorch's
// Linear), embeddings uniform in +-sqrt(3) (mean 0, variance 1 like PyTorch's N(0, 1), but bit
// exact on every platform: no log or cos). Gradients and moments start at zero.
enum class Init { kLinear, kEmbedding, kZero };

struct TensorRow {
  int id;
  std::string name;
  Role role;
  std::vector<std::size_t> shape;
  std::size_t offset, size;  // in floats, within the role's buffer
  Init init;
  std::uint32_t stream;      // the rng stream of the parameter's initial values
  std::size_t fan_in;        // for kLinear
};

}  // namespace headwise::train
