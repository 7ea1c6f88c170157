// What createAttention is made from, as one struct that crosses from JavaScript whole (an Embind
// value_object). The option table below is the only place the layer's options are named, typed,
// bounded and defaulted: the core turns options into a Config with it, and JavaScript reads it
// (attentionOptionTable) for names, types and defaults before calling in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "config.hpp"
#include "option_row.hpp"
#include "status.hpp"

namespace headwise {

struct AttentionOptions {
  double batch = 1, tokens = 6, d_model = 6, heads = 2;
  double head_dim = 0;  // 0: dModel / heads, which must then divide
  bool causal = true, bias = false;
  double seed = 0;
  double memory_budget = 0;  // bytes; 0: the module's default budget
  std::string positions = "none";
  double head_offset = 0;  // this layer's heads start here in a layer of total_heads
  double total_heads = 0;  // 0: heads (the layer is whole)
  double kv_heads = 0;     // 0: heads (multi-head attention)
};

using AttentionOptionRow = OptionRow<AttentionOptions>;

const AttentionOptionRow* attention_option_rows();
std::size_t attention_option_row_count();

// Checks every option (sizes against `limits`) and builds the configuration. The budget is
// taken from options.memory_budget into *limits when given.
Status config_from_options(const AttentionOptions& options, Limits* limits, Config* out);

}  // namespace headwise
