// The tensor shapes of a forward pass, step by step, as a teacher writes them on the board.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config.hpp"

namespace headwise {

struct TraceEntry {
  std::string step;  // input, project, split, attend, merge, out-project
  std::string name;  // what the tensor is, e.g. "q.view(B, T, H, hd)"
  std::vector<std::int64_t> shape;
};

// For a configuration that passed validate_shape().
std::vector<TraceEntry> shape_trace(const Config& config);

std::string format_shape(const std::vector<std::int64_t>& shape);

}  // namespace headwise
