#include "config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "layers/positions/position_kind.hpp"

namespace headwise {

namespace {

Status check_size(const char* name, std::size_t value, std::int64_t max) {
  if (value < 1) {
    return Status::error(std::string(name) + " must be at least 1 (got " + std::to_string(value) +
                         ")");
  }
  if (value > std::size_t(max)) {
    return Status::error(std::string(name) + " " + std::to_string(value) +
                         " is too large (at most " + std::to_string(max) + ")");
  }
  return Status::ok();
}

// Two byte counts as text; exact bytes when the rounded figures would read the same.
void describe_pair(std::uint64_t a, std::uint64_t b, std::string* a_text, std::string* b_text) {
  *a_text = format_bytes(double(a));
  *b_text = format_bytes(double(b));
  if (*a_text == *b_text && a != b) {
    *a_text = std::to_string(a) + " bytes";
    *b_text = std::to_string(b) + " bytes";
  }
}

}  // namespace

// As JavaScript's String(number) prints it: the shortest digits that read back as the value,
// in plain notation from 1e-7 up to 1e21 and as d.ddde+N outside it.
std::string format_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0) return "0";
  char text[40];
  for (int precision = 0; precision <= 16; ++precision) {
    std::snprintf(text, sizeof(text), "%.*e", precision, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  // text is [-]d[.ddd]e(+|-)NN: split it into sign, digits and decimal exponent.
  std::string mantissa(text, std::strchr(text, 'e'));
  const int exponent = std::atoi(std::strchr(text, 'e') + 1);
  const std::string sign = mantissa[0] == '-' ? "-" : "";
  std::string digits;
  for (char ch : mantissa)
    if (ch >= '0' && ch <= '9') digits += ch;
  const int n = int(digits.size());
  if (exponent >= 21 || exponent < -7) {
    std::string out = sign + digits.substr(0, 1);
    if (n > 1) out += "." + digits.substr(1);
    return out + "e" + (exponent > 0 ? "+" : "-") + std::to_string(std::abs(exponent));
  }
  if (exponent < 0) return sign + "0." + std::string(std::size_t(-exponent - 1), '0') + digits;
  if (n <= exponent + 1) return sign + digits + std::string(std::size_t(exponent + 1 - n), '0');
  return sign + digits.substr(0, std::size_t(exponent + 1)) + "." +
         digits.substr(std::size_t(exponent + 1));
}

namespace {

// One size given as a double: whole, at least 1 (0 too if zero_allowed) and at most max.
Status size_from_number(const char* name, double value, std::int64_t max, bool zero_allowed,
                        std::size_t* out) {
  if (std::isnan(value) || std::floor(value) != value) {
    return Status::error(std::string(name) + " must be a whole number (got " +
                         format_number(value) + ")");
  }
  if (value < (zero_allowed ? 0.0 : 1.0)) {
    return Status::error(std::string(name) + " must be at least 1 (got " + format_number(value) +
                         ")");
  }
  if (value > double(max)) {
    return Status::error(std::string(name) + " " + format_number(value) +
                         " is too large (at most " + std::to_string(max) + ")");
  }
  *out = static_cast<std::size_t>(value);  // exact: a whole number no larger than an int64 limit
  return Status::ok();
}

}  // namespace

Status config_from_numbers(double batch, double tokens, double d_model, double heads,
                           double head_dim, bool causal, bool bias, const Limits& limits,
                           Config* out) {
  Config c;
  for (const Status& s :
       {size_from_number("batch", batch, limits.max_batch, false, &c.batch),
        size_from_number("tokens", tokens, limits.max_tokens, false, &c.tokens),
        size_from_number("width", d_model, limits.max_d_model, false, &c.d_model),
        size_from_number("heads", heads, limits.max_heads, false, &c.heads),
        size_from_number("head_dim", head_dim, limits.max_head_dim, true, &c.head_dim)}) {
    if (!s.is_ok()) return s;
  }
  c.causal = causal;
  c.bias = bias;
  *out = c;
  return Status::ok();
}

std::uint64_t budget_from_number(double bytes, std::uint64_t default_bytes) {
  if (!(bytes >= 1.0)) return default_bytes;  // NaN, zero or negative: "not given"
  if (bytes >= 18446744073709551616.0)
    return UINT64_MAX;  // 2^64 and beyond (a cast would be undefined)
  return static_cast<std::uint64_t>(bytes);
}

std::string format_bytes(double bytes) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB", "PB", "EB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 6) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[64];
  std::snprintf(text, sizeof(text), unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

Status validate_shape(const Config& c, const Limits& limits) {
  for (const Status& s : {check_size("batch", c.batch, limits.max_batch),
                          check_size("tokens", c.tokens, limits.max_tokens),
                          check_size("width", c.d_model, limits.max_d_model),
                          check_size("heads", c.heads, limits.max_heads)}) {
    if (!s.is_ok()) return s;
  }
  if (c.head_dim != 0) {
    Status s = check_size("head_dim", c.head_dim, limits.max_head_dim);
    if (!s.is_ok()) return s;
  }
  return layers::check_dimensions(c);
}

bool row_allocated(const TensorRow& row, const Config& c, bool with_intermediates) {
  switch (row.alloc) {
    case Alloc::kAlways:
      return true;
    case Alloc::kWithBias:
      return c.bias;
    case Alloc::kWithIntermediates:
      return with_intermediates;
    case Alloc::kWithInputPositions:
      return c.position && (c.position->learned_table || c.position->add_to_input);
    case Alloc::kWithScoreBiasKept:
      return with_intermediates && c.position && c.position->score_bias;
  }
  return false;
}

CheckedU64 tensor_bytes(const Config& c, bool with_intermediates) {
  DimValues dims{};
  if (!layers::attention_dims(layers::resolved(c), &dims)) return CheckedU64::overflowed();
  CheckedU64 floats = 0;
  for (int i = 0; i < kTensorCount; ++i) {
    const TensorRow& row = tensor_table()[i];
    if (row_allocated(row, c, with_intermediates)) floats += row_floats(row, dims);
  }
  return floats * sizeof(float);
}

CheckedU64 needed_bytes(const Config& c, bool with_intermediates) {
  std::uint64_t allocations = 0;
  for (int i = 0; i < kTensorCount; ++i)
    allocations += row_allocated(tensor_table()[i], c, with_intermediates);
  return tensor_bytes(c, with_intermediates) + kLayerObjectBytes + allocations * kAllocationBytes;
}

std::uint64_t effective_budget(const Limits& limits) {
  return std::min(limits.memory_budget_bytes, limits.address_space_bytes);
}

Status validate(const Config& c, const Limits& limits, bool with_intermediates) {
  Status s = validate_shape(c, limits);
  if (!s.is_ok()) return s;
  const char* kept = with_intermediates ? " (with the (B, H, T, T) scores kept)" : "";
  const CheckedU64 bytes = needed_bytes(c, with_intermediates);
  if (!bytes.ok()) {
    return Status::error(std::string("this configuration is too large") + kept +
                         ": its size does not fit in 64 bits");
  }
  const std::uint64_t budget = effective_budget(limits);
  if (bytes.value() > budget) {
    std::string needed, allowed;
    describe_pair(bytes.value(), budget, &needed, &allowed);
    const bool capped = budget < limits.memory_budget_bytes;
    return Status::error(
        "this configuration needs " + needed + kept + ", more than the " +
        (capped ? "module can ever hold (" + allowed + ")" : "memory budget of " + allowed));
  }
  return Status::ok();
}

}  // namespace headwise
