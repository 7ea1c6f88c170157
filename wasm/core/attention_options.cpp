#include "attention_options.hpp"

#include "layers/positions/position_kind.hpp"

namespace headwise {

namespace {

using Row = AttentionOptionRow;
using O = AttentionOptions;

const Limits kDefaultLimits;
const Row kRows[] = {
    size_row("batch", 1, double(kDefaultLimits.max_batch), &O::batch,
             "sequences in one forward pass"),
    size_row("tokens", 1, double(kDefaultLimits.max_tokens), &O::tokens, "words per sequence (T)"),
    size_row("dModel", 1, double(kDefaultLimits.max_d_model), &O::d_model,
             "width of each word's vector"),
    size_row("heads", 1, double(kDefaultLimits.max_heads), &O::heads, "attention heads"),
    size_row("headDim", 0, double(kDefaultLimits.max_head_dim), &O::head_dim,
             "width of one head (0 or left out: dModel / heads)"),
    flag_row("causal", &O::causal, "each position attends only to itself and earlier ones"),
    flag_row("bias", &O::bias, "biases in the four linear maps"),
    integer_row("seed", 0, 4294967295.0, &O::seed,
                "the seeded weights (and a learned position table)"),
    integer_row("memoryBudget", 1, kUnbounded, &O::memory_budget,
                "bytes the layer may use (left out: 1 GB)", "byte"),
    choice_row("positions", &O::positions, layers::position_kind_names,
               "how word order enters (see positionKinds())"),
    integer_row("headOffset", 0, double(kDefaultLimits.max_heads - 1), &O::head_offset,
                "the first head's index in the whole layer (a part of a layer split by heads)"),
    integer_row("totalHeads", 0, double(kDefaultLimits.max_heads), &O::total_heads,
                "heads of the whole layer this one is a part of (0: heads); ALiBi's slopes "
                "depend on it"),
    integer_row("kvHeads", 1, double(kDefaultLimits.max_heads), &O::kv_heads,
                "K/V heads, each shared by heads / kvHeads query heads (left out: heads, "
                "multi-head; 1: multi-query); must divide heads"),
};

}  // namespace

const AttentionOptionRow* attention_option_rows() { return kRows; }
std::size_t attention_option_row_count() { return sizeof(kRows) / sizeof(kRows[0]); }

Status config_from_options(const AttentionOptions& o, Limits* limits, Config* out) {
  for (const Row& r : kRows) {
    if (r.number == &O::memory_budget && o.memory_budget == 0) continue;  // 0: not given
    if (r.number == &O::kv_heads && o.kv_heads == 0) continue;            // 0: heads
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
