// What one multi-head attention layer is (width, heads, head size, K/V heads, biases, word order)
// and what one run of it sees (batch, tokens, mask): the one description of the layer that the
// explorer's layer (config.hpp: Config is this shape), the trainer's blocks (model_spec.hpp) and
// the cache sizes read. Its dimension rule and its dimension values are written here, nowhere else.
#pragma once

#include <cstddef>

#include "positions/position_kind.hpp"
#include "status.hpp"
#include "tensor_row.hpp"

namespace headwise::layers {

struct AttentionShape {
  std::size_t batch = 1, tokens = 1, d_model = 6, heads = 2;
  // 0 means "derive it": d_model / heads, which must divide evenly (GPT's rule); resolved()
  // writes it. Given, the concatenation is heads * head_dim wide and W_out maps it to d_model.
  std::size_t head_dim = 0;
  std::size_t query_from = 0;  // qf: the first position that gets a query (0: all)
  bool causal = true;
  const PositionKind* position = nullptr;  // how word order enters; null: nowhere
  // These heads are heads [head_offset, head_offset + heads) of a layer of total_heads (0: heads,
  // the whole layer): a part of a layer split by heads keeps ALiBi's slopes.
  std::size_t head_offset = 0, total_heads = 0;
  std::size_t all_heads() const { return total_heads ? total_heads : heads; }
  // Ablation: per head, nonzero = its context is zeroed before W_out (null: none). Forward only.
  const unsigned char* zero_heads = nullptr;
  std::size_t concat() const { return heads * head_dim; }
  std::size_t query_tokens() const { return tokens - query_from; }
  // Grouped-query attention: kv_heads K/V heads (0: heads, multi-head attention), dividing heads;
  // query head h reads K/V head h / (heads / kv_heads). 1: multi-query attention. k and v (and
  // Wk, Wv, bk, bv) are kv_concat() = kv_heads * head_dim wide.
  std::size_t kv_heads = 0;
  std::size_t kv() const { return kv_heads ? kv_heads : heads; }
  std::size_t kv_concat() const { return kv() * head_dim; }
  std::size_t group() const { return heads / kv(); }  // query heads per K/V head
  std::size_t kv_head_of(std::size_t h) const { return h / group(); }
  bool bias = false;  // bq, bk, bv, bout exist
  // Multi-head latent attention (latent_attention.hpp) instead of multi-head: keys and values
  // through a latent of kv_latent numbers per position, plus a decoupled RoPE key of rope_dim
  // shared by the heads. kv_latent and rope_dim are 0 for multi-head attention.
  bool latent = false;
  std::size_t kv_latent = 0, rope_dim = 0;
};

// The attention kinds, as JavaScript spells them ("mha", "mla"), null-terminated.
const char* const* attention_kind_names();

// The dimension rule, for sizes of at least 1: head_dim derivable (width divisible by heads) or
// given, kv_heads dividing heads; latent attention with a latent, an even rope_dim of at most
// head_dim, and none of multi-head's K/V heads, biases or positions. Refusals name the numbers.
Status check_dimensions(const AttentionShape& s);
// Its first rule, the one place it is written (the trainer's options use it too): head_dim given
// (not 0), or width divisible by heads (at least 1).
Status check_heads(std::size_t d_model, std::size_t heads, std::size_t head_dim);
// The shape with head_dim derived where it is 0 (after check_dimensions succeeded).
AttentionShape resolved(AttentionShape s);
// B, T, Tq, D, H, hd, C, Hkv, Ckv and S (the attention kernel's scratch) of a resolved shape;
// false if one of them cannot be computed in 64 bits.
bool attention_dims(const AttentionShape& s, DimValues* out);

}  // namespace headwise::layers
