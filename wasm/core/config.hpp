// What a multi-head attention layer is (width, heads, head size, biases) and what one run of it
// sees (batch, tokens, causal mask), with the checks that refuse impossible or oversized ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "layers/attention.hpp"
#include "status.hpp"
#include "tensor_table.hpp"

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
  // How word order enters (layers/positions); null: nowhere.
  const layers::PositionKind* position = nullptr;
  // This layer's heads are heads [head_offset, head_offset + heads) of a layer of total_heads
  // (0: heads, the whole layer): a part of a layer split by heads keeps ALiBi's slopes.
  std::int64_t head_offset = 0;
  std::int64_t total_heads = 0;
  // K/V heads (grouped-query attention, layers/attention.hpp): 0 is heads (multi-head), 1 is
  // multi-query; otherwise it must divide heads.
  std::int64_t kv_heads = 0;
};

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

// Checks sizes and the dimension rule only.
Status validate_shape(const Config& config, const Limits& limits);
// validate_shape plus the memory budget for every tensor the table allocates in that state
// (with or without the intermediates), in checked 64-bit arithmetic.
Status validate(const Config& config, const Limits& limits, bool with_intermediates = false);
// The operator's shape (every position a query). Only meaningful after validate_shape succeeded.
layers::AttentionShape shape_of(const Config& config);
// The table's dimension values; false if one of them (the scratch size) cannot be computed.
bool dim_values(const Config& config, DimValues* out);

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
