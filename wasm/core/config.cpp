#include "config.hpp"

#include <algorithm>
#include <cstdio>

#include "simd_sizes.hpp"

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

bool dim_values(const Config& c, DimValues* out) {
  DimValues& v = *out;
  const std::uint64_t hd = std::uint64_t(c.head_dim > 0 ? c.head_dim : c.d_model / c.heads);
  v[int(Dim::kB)] = std::uint64_t(c.batch);
  v[int(Dim::kT)] = std::uint64_t(c.tokens);
  v[int(Dim::kD)] = std::uint64_t(c.d_model);
  v[int(Dim::kH)] = std::uint64_t(c.heads);
  v[int(Dim::kHd)] = hd;
  const CheckedU64 concat = CheckedU64(std::uint64_t(c.heads)) * hd;
  if (!concat.ok()) return false;
  v[int(Dim::kC)] = concat.value();
  return head_scratch_floats_u64(std::uint64_t(c.tokens), hd, &v[int(Dim::kS)]);
}

bool row_allocated(const TensorRow& row, bool bias, bool with_intermediates) {
  switch (row.alloc) {
    case Alloc::kAlways: return true;
    case Alloc::kWithBias: return bias;
    case Alloc::kWithIntermediates: return with_intermediates;
  }
  return false;
}

CheckedU64 needed_bytes(const Config& c, bool with_intermediates) {
  DimValues dims{};
  if (!dim_values(c, &dims)) return CheckedU64::overflowed();
  CheckedU64 floats = 0;
  for (int i = 0; i < kTensorCount; ++i) {
    const TensorRow& row = tensor_table()[i];
    if (row_allocated(row, c.bias, with_intermediates)) floats += row_floats(row, dims);
  }
  return floats * sizeof(float);
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
    return Status::error("this configuration needs " + needed + kept + ", more than the " +
                         (capped ? "module can ever hold (" + allowed + ")"
                                 : "memory budget of " + allowed));
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

}  // namespace headwise
