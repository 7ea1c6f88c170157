// What createAttention is made from, as one struct that crosses from JavaScript whole (an Embind
// value_object). The option table below is the only place the layer's options are named, typed,
// bounded and defaulted: the core turns options into the layer's shape (Config) with it, and
// JavaScript reads it (attentionOptionTable) for names, types and defaults before calling in.
// A new option is a field and a row here, its field in the layer's shape and its use in the
// layer (layers/attention_shape.hpp, layers/attention.cpp); the README describes it for readers
// (docs/extending.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "config.hpp"
#include "layers/positions/position_kind.hpp"
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
  std::string attention = "mha";
  double kv_latent = 0, rope_dim = 0;  // attention "mla" only
};

using AttentionOptionRow = OptionRow<AttentionOptions>;

inline const Limits kDefaultLimits;
inline const AttentionOptionRow kAttentionOptionRows[] = {
    size_row("batch", 1, double(kDefaultLimits.max_batch), &AttentionOptions::batch,
             "sequences in one forward pass"),
    size_row("tokens", 1, double(kDefaultLimits.max_tokens), &AttentionOptions::tokens,
             "words per sequence (T)"),
    size_row("dModel", 1, double(kDefaultLimits.max_d_model), &AttentionOptions::d_model,
             "width of each word's vector"),
    size_row("heads", 1, double(kDefaultLimits.max_heads), &AttentionOptions::heads,
             "attention heads"),
    size_row("headDim", 0, double(kDefaultLimits.max_head_dim), &AttentionOptions::head_dim,
             "width of one head (0 or left out: dModel / heads)"),
    flag_row("causal", &AttentionOptions::causal,
             "each position attends only to itself and earlier ones"),
    flag_row("bias", &AttentionOptions::bias, "biases in the four linear maps"),
    integer_row("seed", 0, 4294967295.0, &AttentionOptions::seed,
                "the seeded weights (and a learned position table)"),
    integer_row("memoryBudget", 1, kUnbounded, &AttentionOptions::memory_budget,
                "bytes the layer may use (left out: 1 GB)", "byte"),
    choice_row("positions", &AttentionOptions::positions, layers::position_kind_names,
               "how word order enters (see positionKinds())"),
    integer_row("headOffset", 0, double(kDefaultLimits.max_heads - 1),
                &AttentionOptions::head_offset,
                "the first head's index in the whole layer (a part of a layer split by heads)"),
    integer_row("totalHeads", 0, double(kDefaultLimits.max_heads), &AttentionOptions::total_heads,
                "heads of the whole layer this one is a part of (0: heads); ALiBi's slopes "
                "depend on it"),
    integer_row("kvHeads", 1, double(kDefaultLimits.max_heads), &AttentionOptions::kv_heads,
                "K/V heads, each shared by heads / kvHeads query heads (left out: heads, "
                "multi-head; 1: multi-query); must divide heads"),
    choice_row("attention", &AttentionOptions::attention, layers::attention_kind_names,
               "\"mha\": multi-head; \"mla\": multi-head latent attention (DeepSeek-V2), keys "
               "and values through a latent of kvLatent numbers per position"),
    integer_row("kvLatent", 0, double(kDefaultLimits.max_d_model), &AttentionOptions::kv_latent,
                "attention \"mla\": the latent's width (d_c), what the cache holds per position"),
    integer_row("ropeDim", 0, double(kDefaultLimits.max_head_dim), &AttentionOptions::rope_dim,
                "attention \"mla\": the decoupled RoPE key's width (d_r, even, at most headDim; "
                "0: none), shared by the heads"),
};

inline const AttentionOptionRow* attention_option_rows() { return kAttentionOptionRows; }
inline std::size_t attention_option_row_count() {
  return sizeof(kAttentionOptionRows) / sizeof(kAttentionOptionRows[0]);
}

// Checks every option (sizes against `limits`) and builds the configuration. The budget is
// taken from options.memory_budget into *limits when given.
inline Status config_from_options(const AttentionOptions& o, Limits* limits, Config* out) {
  for (const AttentionOptionRow& r : kAttentionOptionRows) {
    if (r.number == &AttentionOptions::memory_budget && o.memory_budget == 0)
      continue;                                                                // 0: not given
    if (r.number == &AttentionOptions::kv_heads && o.kv_heads == 0) continue;  // 0: heads
    Status s = check_row(r, o);
    if (!s.is_ok()) return s;
  }
  limits->memory_budget_bytes = budget_from_number(o.memory_budget, limits->memory_budget_bytes);
  Config c;
  Status s = config_from_numbers(o.batch, o.tokens, o.d_model, o.heads, o.head_dim, o.causal,
                                 o.bias, *limits, &c);
  if (!s.is_ok()) return s;
  c.position = layers::find_position_kind(o.positions.c_str());
  c.head_offset = std::size_t(o.head_offset);
  c.total_heads = std::size_t(o.total_heads);
  c.kv_heads = std::size_t(o.kv_heads);
  c.latent = o.attention == "mla";
  c.kv_latent = std::size_t(o.kv_latent);
  c.rope_dim = std::size_t(o.rope_dim);
  const std::size_t total = c.total_heads > 0 ? c.total_heads : c.heads;
  if (c.head_offset + c.heads > total) {
    return Status::error("headOffset + heads (" + std::to_string(c.head_offset + c.heads) +
                         ") must be at most totalHeads (" + std::to_string(total) +
                         (c.total_heads > 0 ? "" : ", which is heads when left out") + ")");
  }
  *out = c;
  return Status::ok();
}

}  // namespace headwise
