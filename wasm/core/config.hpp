// What a multi-head attention layer is (width, heads, head size, biases) and what one run of it
// sees (batch, tokens, causal mask), with the checks that refuse impossible or oversized ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "status.hpp"

namespace headwise {

struct Config {
  std::int64_t batch = 1;
  std::int64_t tokens = 1;
  std::int64_t d_model = 6;
  std::int64_t heads = 2;
  // 0 means "derive it": head_dim = d_model / heads, which must divide evenly (GPT's rule).
  // Given explicitly, the concatenation is heads * head_dim wide and W_out maps it to d_model.
  std::int64_t head_dim = 0;
  bool causal = true;
  bool bias = false;
};

struct Limits {
  std::int64_t max_batch = 4096;
  std::int64_t max_tokens = 65536;
  std::int64_t max_d_model = 65536;
  std::int64_t max_heads = 65536;
  std::int64_t max_head_dim = 65536;
  std::uint64_t memory_budget_bytes = 1ULL << 30;
};

// Sizes of a configuration that passed validate(); all counts are in floats.
struct Dims {
  std::size_t batch, tokens, d_model, heads, head_dim;
  std::size_t concat;  // heads * head_dim
  bool causal, bias;

  std::size_t rows() const { return batch * tokens; }  // B*T, the rows of every projection
  std::size_t intermediate_floats() const;  // scores and attention, (B, H, T, T) each
};

// Checks sizes and the dimension rule only.
Status validate_shape(const Config& config, const Limits& limits);
// validate_shape plus the memory budget for weights and activations (and intermediates if asked).
Status validate(const Config& config, const Limits& limits, bool with_intermediates = false);
// Only meaningful after validate_shape succeeded.
Dims dims_of(const Config& config);

std::string format_bytes(double bytes);

}  // namespace headwise
