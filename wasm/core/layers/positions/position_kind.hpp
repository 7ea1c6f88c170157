// How word order gets into a model: one PositionKind per scheme, each entering where its paper
// puts it. A kind fills in only the hooks it uses:
//   input   x0[t] += PE(t) before the first layer (learned absolute, sinusoidal)
//   rotate  q and k of every head rotated by their position, v untouched (RoPE)
//   bias    a per-head bias added to the scaled scores before softmax (ALiBi)
// Adding a kind is one file defining its PositionKind and one line in registry.cpp; JavaScript
// reads name, label, about and place of entry from the module (positionKinds()).
#pragma once

#include <cstddef>

namespace headwise::layers {

struct PositionKind {
  const char* name;    // as JavaScript spells it: "none", "learned", ...
  const char* label;   // as a page shows it: "learned absolute", "RoPE", ...
  const char* enters;  // "nowhere", "input", "queries and keys", "scores"
  // A learned (T, D) table "positionEmbedding", added to x0 row by row.
  bool learned_table;
  // Adds the fixed encoding of position t to one input row of width d_model.
  void (*add_to_input)(std::size_t t, std::size_t d_model, float* row);
  // Rotates one head's vector (head_dim floats) to position t; inverse rotates back (the
  // rotation's transpose, which is what the backward pass applies to gradients).
  void (*rotate)(std::size_t t, std::size_t head_dim, float* vec, bool inverse);
  // The bias added to head h's scaled score of query position i on key position j.
  float (*score_bias)(std::size_t h, std::size_t heads, std::size_t i, std::size_t j);
  // What the kind is, as a page says it after the label (its paper and rule); "" for none.
  const char* about = "";
};

// The registered kinds, in the order JavaScript lists them; null-terminated.
const PositionKind* const* position_kinds();
// Their names, in the same order, null-terminated (the option tables' choices).
const char* const* position_kind_names();
// The kind named `name`, or null.
const PositionKind* find_position_kind(const char* name);

}  // namespace headwise::layers
