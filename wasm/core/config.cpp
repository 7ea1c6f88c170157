#include "config.hpp"

#include <cstdio>

#include "attention_head.hpp"

namespace headwise {

namespace {

Status check_size(const char* name, std::int64_t value, std::int64_t max) {
  if (value < 1) {
    return Status::error(std::string(name) + " must be at least 1 (got " + std::to_string(value) +
                         ")");
  }
  if (value > max) {
    return Status::error(std::string(name) + " " + std::to_string(value) +
                         " is too large (at most " + std::to_string(max) + ")");
  }
  return Status::ok();
}

// Float counts in double so that absurd products cannot overflow before they are compared.
double needed_bytes(const Config& c, bool with_intermediates) {
  const double hd = c.head_dim > 0 ? double(c.head_dim) : double(c.d_model) / double(c.heads);
  const double concat = double(c.heads) * hd;
  const double rows = double(c.batch) * double(c.tokens);
  const double d = double(c.d_model);
  double floats = 4.0 * d * concat + 3.0 * concat + d;  // weights and biases
  floats += 2.0 * rows * d;                             // input, output
  floats += 8.0 * rows * concat;  // q, k, v, their per-head copies, per-head context, concat
  floats += head_scratch_floats_f64(double(c.tokens), hd);  // attention scratch, linear in T
  if (with_intermediates) floats += 2.0 * double(c.batch) * double(c.heads) * c.tokens * c.tokens;
  return floats * sizeof(float);
}

}  // namespace

std::string format_bytes(double bytes) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB", "PB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 5) {
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
  if (c.head_dim == 0) {
    if (c.d_model % c.heads != 0) {
      return Status::error("width " + std::to_string(c.d_model) + " is not divisible by " +
                           std::to_string(c.heads) + (c.heads == 1 ? " head" : " heads") +
                           " (heads x head_dim must equal width)");
    }
  } else {
    Status s = check_size("head_dim", c.head_dim, limits.max_head_dim);
    if (!s.is_ok()) return s;
  }
  return Status::ok();
}

Status validate(const Config& c, const Limits& limits, bool with_intermediates) {
  Status s = validate_shape(c, limits);
  if (!s.is_ok()) return s;
  const double bytes = needed_bytes(c, with_intermediates);
  if (bytes > double(limits.memory_budget_bytes)) {
    return Status::error("this configuration needs " + format_bytes(bytes) +
                         (with_intermediates ? " (with the (B, H, T, T) scores kept)" : "") +
                         ", more than the memory budget of " +
                         format_bytes(double(limits.memory_budget_bytes)));
  }
  return Status::ok();
}

Dims dims_of(const Config& c) {
  Dims d{};
  d.batch = std::size_t(c.batch);
  d.tokens = std::size_t(c.tokens);
  d.d_model = std::size_t(c.d_model);
  d.heads = std::size_t(c.heads);
  d.head_dim = std::size_t(c.head_dim > 0 ? c.head_dim : c.d_model / c.heads);
  d.concat = d.heads * d.head_dim;
  d.causal = c.causal;
  d.bias = c.bias;
  return d;
}

std::size_t Dims::intermediate_floats() const { return 2 * batch * heads * tokens * tokens; }

}  // namespace headwise
