#include "attention_shape.hpp"

#include <string>

#include "simd_sizes.hpp"

namespace headwise::layers {

namespace {

const char* const kAttentionKinds[] = {"mha", "mla", nullptr};

Status check_latent(const AttentionShape& s) {
  const std::string mla = "attention \"mla\"";
  if (!s.latent) {
    if (s.kv_latent == 0 && s.rope_dim == 0) return Status::ok();
    return Status::error(std::string(s.kv_latent ? "kvLatent" : "ropeDim") +
                         " belongs to multi-head latent attention: give attention \"mla\" too "
                         "(or leave it out)");
  }
  if (s.kv_latent == 0)
    return Status::error(mla + " needs kvLatent, the latent's width (at least 1)");
  const std::size_t head_dim = s.head_dim ? s.head_dim : s.d_model / s.heads;
  if (s.rope_dim % 2 != 0)
    return Status::error("ropeDim " + std::to_string(s.rope_dim) +
                         " must be even: RoPE rotates pairs of numbers");
  if (s.rope_dim > head_dim)
    return Status::error("ropeDim " + std::to_string(s.rope_dim) + " is more than headDim (" +
                         std::to_string(head_dim) + ")");
  if (s.kv_heads > 0)
    return Status::error(mla +
                         " shares keys and values through its latent: leave kvHeads out (it "
                         "groups multi-head attention's K/V heads)");
  if (s.bias) return Status::error(mla + " has no biases: leave bias out");
  if (s.position && s.position->name != std::string("none"))
    return Status::error(mla + " has its own decoupled RoPE key (ropeDim): leave positions out");
  if (s.head_offset > 0 || s.total_heads > 0)
    return Status::error(mla + " is a whole layer: leave headOffset and totalHeads out");
  return Status::ok();
}

}  // namespace

const char* const* attention_kind_names() { return kAttentionKinds; }

Status check_heads(std::size_t d_model, std::size_t heads, std::size_t head_dim) {
  if (head_dim != 0 || d_model % heads == 0) return Status::ok();
  return Status::error("width " + std::to_string(d_model) + " is not divisible by " +
                       std::to_string(heads) + (heads == 1 ? " head" : " heads") +
                       " (heads x head_dim must equal width)");
}

Status check_dimensions(const AttentionShape& s) {
  Status heads = check_heads(s.d_model, s.heads, s.head_dim);
  if (!heads.is_ok()) return heads;
  if (s.kv_heads > s.heads) {
    return Status::error("kvHeads " + std::to_string(s.kv_heads) + " is more than heads (" +
                         std::to_string(s.heads) + ")");
  }
  if (s.kv_heads > 0 && s.heads % s.kv_heads != 0) {
    return Status::error("kvHeads " + std::to_string(s.kv_heads) + " must divide heads (" +
                         std::to_string(s.heads) +
                         "): each K/V head is shared by the same number of query heads");
  }
  return check_latent(s);
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
