#include "attention_options.hpp"

#include <cmath>
#include <limits>

#include "layers/positions/position_kind.hpp"

namespace headwise {

namespace {

using Type = AttentionOptionType;
constexpr double kUnbounded = std::numeric_limits<double>::infinity();

constexpr AttentionOptionRow size(const char* name, double lo, double hi,
                                  double AttentionOptions::*field, const char* about) {
  return {name, Type::kSize, lo, hi, "", field, nullptr, nullptr, nullptr, about};
}
constexpr AttentionOptionRow flag(const char* name, bool AttentionOptions::*field,
                                  const char* about) {
  return {name, Type::kBoolean, 0, 0, "", nullptr, field, nullptr, nullptr, about};
}

const Limits kDefaultLimits;
const AttentionOptionRow kRows[] = {
    size("batch", 1, double(kDefaultLimits.max_batch), &AttentionOptions::batch,
         "sequences in one forward pass"),
    size("tokens", 1, double(kDefaultLimits.max_tokens), &AttentionOptions::tokens,
         "words per sequence (T)"),
    size("dModel", 1, double(kDefaultLimits.max_d_model), &AttentionOptions::d_model,
         "width of each word's vector"),
    size("heads", 1, double(kDefaultLimits.max_heads), &AttentionOptions::heads, "attention heads"),
    size("headDim", 0, double(kDefaultLimits.max_head_dim), &AttentionOptions::head_dim,
         "width of one head (0 or left out: dModel / heads)"),
    flag("causal", &AttentionOptions::causal,
         "each position attends only to itself and earlier ones"),
    flag("bias", &AttentionOptions::bias, "biases in the four linear maps"),
    {"seed", Type::kInteger, 0, 4294967295.0, "", &AttentionOptions::seed, nullptr, nullptr,
     nullptr, "the seeded weights (and a learned position table)"},
    {"memoryBudget", Type::kInteger, 1, kUnbounded, "byte", &AttentionOptions::memory_budget,
     nullptr, nullptr, nullptr, "bytes the layer may use (left out: 1 GB)"},
    {"positions", Type::kChoice, 0, 0, "", nullptr, nullptr, &AttentionOptions::positions,
     layers::position_kind_names, "how word order enters (see positionKinds())"},
    {"headOffset", Type::kInteger, 0, double(kDefaultLimits.max_heads - 1), "",
     &AttentionOptions::head_offset, nullptr, nullptr, nullptr,
     "the first head's index in the whole layer (a part of a layer split by heads)"},
    {"totalHeads", Type::kInteger, 0, double(kDefaultLimits.max_heads), "",
     &AttentionOptions::total_heads, nullptr, nullptr, nullptr,
     "heads of the whole layer this one is a part of (0: heads); ALiBi's slopes depend on it"},
};

Status choice_status(const AttentionOptionRow& r, const std::string& v) {
  std::string known;
  for (const char* const* c = r.choices(); *c; ++c) {
    if (v == *c) return Status::ok();
    known += std::string(known.empty() ? "" : ", ") + "\"" + *c + "\"";
  }
  return Status::error(std::string(r.name) + " must be one of " + known + ", got \"" + v + "\"");
}

}  // namespace

const AttentionOptionRow* attention_option_rows() { return kRows; }
std::size_t attention_option_row_count() { return sizeof(kRows) / sizeof(kRows[0]); }

Status config_from_options(const AttentionOptions& o, Limits* limits, Config* out) {
  for (const AttentionOptionRow& r : kRows) {
    if (r.type == Type::kChoice) {
      Status s = choice_status(r, o.*r.text);
      if (!s.is_ok()) return s;
    }
    if (r.type != Type::kInteger) continue;
    const double v = o.*r.number;
    if (r.number == &AttentionOptions::memory_budget && v == 0) continue;  // 0: not given
    if (!(v == std::floor(v) && v >= r.min && v <= r.max)) {
      return Status::error(std::string(r.name) + " must be a whole number from " +
                           format_number(r.min) + (std::isinf(r.max) ? "" : " to ") +
                           (std::isinf(r.max) ? " up" : format_number(r.max)) + ", got " +
                           format_number(v));
    }
  }
  limits->memory_budget_bytes = budget_from_number(o.memory_budget, limits->memory_budget_bytes);
  Config c;
  Status s = config_from_numbers(o.batch, o.tokens, o.d_model, o.heads, o.head_dim, o.causal,
                                 o.bias, *limits, &c);
  if (!s.is_ok()) return s;
  c.position = layers::find_position_kind(o.positions.c_str());
  c.head_offset = std::int64_t(o.head_offset);
  c.total_heads = std::int64_t(o.total_heads);
  const std::int64_t total = c.total_heads > 0 ? c.total_heads : c.heads;
  if (c.head_offset + c.heads > total) {
    return Status::error("headOffset + heads (" + std::to_string(c.head_offset + c.heads) +
                         ") must be at most totalHeads (" + std::to_string(total) +
                         (c.total_heads > 0 ? "" : ", which is heads when left out") + ")");
  }
  *out = c;
  return Status::ok();
}

}  // namespace headwise
