#include "attention_shape.hpp"

#include <string>

#include "simd_sizes.hpp"

namespace headwise::layers {

Status check_dimensions(const AttentionShape& s) {
  if (s.head_dim == 0 && s.d_model % s.heads != 0) {
    return Status::error("width " + std::to_string(s.d_model) + " is not divisible by " +
                         std::to_string(s.heads) + (s.heads == 1 ? " head" : " heads") +
                         " (heads x head_dim must equal width)");
  }
  if (s.kv_heads > s.heads) {
    return Status::error("kvHeads " + std::to_string(s.kv_heads) + " is more than heads (" +
                         std::to_string(s.heads) + ")");
  }
  if (s.kv_heads > 0 && s.heads % s.kv_heads != 0) {
    return Status::error("kvHeads " + std::to_string(s.kv_heads) + " must divide heads (" +
                         std::to_string(s.heads) +
                         "): each K/V head is shared by the same number of query heads");
  }
  return Status::ok();
}

AttentionShape resolved(AttentionShape s) {
  if (s.head_dim == 0) s.head_dim = s.d_model / s.heads;
  return s;
}

bool attention_dims(const AttentionShape& s, DimValues* out) {
  DimValues& v = *out;
  v[int(Dim::kB)] = s.batch;
  v[int(Dim::kT)] = s.tokens;
  v[int(Dim::kTq)] = s.query_tokens();
  v[int(Dim::kD)] = s.d_model;
  v[int(Dim::kH)] = s.heads;
  v[int(Dim::kHd)] = s.head_dim;
  const CheckedU64 concat = CheckedU64(std::uint64_t(s.heads)) * s.head_dim;
  if (!concat.ok()) return false;
  v[int(Dim::kC)] = concat.value();
  v[int(Dim::kHkv)] = s.kv();
  v[int(Dim::kCkv)] = s.kv() * s.head_dim;  // no larger than C
  return head_scratch_floats_u64(s.tokens, s.head_dim, &v[int(Dim::kS)]);
}

}  // namespace headwise::layers
