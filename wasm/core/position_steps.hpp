// Where the inference layer's position kinds (layers/positions) enter its forward pass:
// added to x before the projections (learned, sinusoidal), a rotation of the per-head q and k
// (RoPE), a per-head bias on the scaled scores (ALiBi: attend() passes the kind's bias to
// attend_head_f32). The kinds' own functions compute the values; these loops only apply them to
// the layer's tensors.
#pragma once

#include "config.hpp"

namespace headwise {

// The (T, D) table a kind adds to x: the sinusoid for "sinusoidal" (a learned table is seeded).
void fill_input_positions(const Dims& d, float* positions);
// out (B, T, D) = x + positions[t] for every sequence.
void add_input_positions(const Dims& d, const float* positions, const float* x, float* out);
// Rotates every head's rows of (B, H, T, hd) to their positions (RoPE); v is never passed here.
void rotate_heads(const Dims& d, float* heads);
// bias (H, T, T): the kind's score bias of each head, query i, key j.
void fill_score_bias(const Dims& d, float* bias);

}  // namespace headwise
