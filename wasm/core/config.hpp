// The explorer's layer: its configuration is the layer's own shape (layers/attention_shape.hpp),
// and its limits, memory budget and the checks that refuse impossible or oversized ones are here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "layers/attention_shape.hpp"
#include "status.hpp"
#include "tensor_table.hpp"

namespace headwise {

// batch, tokens, d_model, heads, head_dim (0: derive it), causal, bias, position, head range and
// kv_heads: one fact, the layer's. A page's layer gets queries at every position.
using Config = layers::AttentionShape;

struct Limits {
  std::int64_t max_batch = 4096;
  std::int64_t max_tokens = 65536;
  std::int64_t max_d_model = 65536;
  std::int64_t max_heads = 65536;
  std::int64_t max_head_dim = 65536;
  std::uint64_t memory_budget_bytes = 1ULL << 30;
  // The most memory the process can ever address: a budget above it is capped to it, so no size
  // that passed the budget can wrap a size_t. The wasm bindings set the module's maximum memory.
  std::uint64_t address_space_bytes = std::numeric_limits<std::size_t>::max();
};

// A configuration from numbers as a caller outside C++ hands them over (JavaScript's doubles):
// a size that is not a whole number, or lies beyond its limit (1e308, 2^64), is refused in words
// here, before any conversion to an integer could saturate or wrap it. head_dim 0: derive it.
Status config_from_numbers(double batch, double tokens, double d_model, double heads,
                           double head_dim, bool causal, bool bias, const Limits& limits,
                           Config* out);
// A budget in bytes from a double: at least 1 byte, anything from 2^64 up (or +infinity) is
// UINT64_MAX (validate() caps it to the address space), NaN or below 1 keeps the default.
std::uint64_t budget_from_number(double bytes, std::uint64_t default_bytes);
// The shortest decimal text that reads back as `value` ("1e+308", "65536", "1.5").
std::string format_number(double value);

// Checks sizes against the limits and the layer's dimension rule only.
Status validate_shape(const Config& config, const Limits& limits);
// validate_shape plus the memory budget for every tensor the table allocates in that state
// (with or without the intermediates), in checked 64-bit arithmetic.
Status validate(const Config& config, const Limits& limits, bool with_intermediates = false);

// Whether a model with this configuration holds the row (intermediates: while they are kept).
bool row_allocated(const TensorRow& row, const Config& config, bool with_intermediates);
// Bytes of every row allocated in that state, checked; !ok() if the sum overflows 64 bits.
CheckedU64 tensor_bytes(const Config& config, bool with_intermediates);
// What a layer holds in the heap in that state: its rows' bytes, and for the layer object, its
// handle and each allocation's header a fixed kLayerObjectBytes + kAllocationBytes per row. The
// memory budget is checked against this, so a layer never holds more than the budget it fits.
constexpr std::uint64_t kLayerObjectBytes = 1024, kAllocationBytes = 16;
CheckedU64 needed_bytes(const Config& config, bool with_intermediates);
// min(budget, address space): the budget validate() applies.
std::uint64_t effective_budget(const Limits& limits);

std::string format_bytes(double bytes);

}  // namespace headwise
