// A stack's tensor table for one spec: every parameter and activation row of stack_rows.hpp that
// the spec needs, named ("blocks.1.wq"), sized, and placed in its buffer. Parameters share one
// layout over four buffers (value, gradient, Adam's two moments); activations are laid out for
// up to `capacity` sequences. Sizes are summed here, in checked 64-bit arithmetic, and nowhere
// else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model_spec.hpp"
#include "stack_rows.hpp"
#include "status.hpp"

namespace headwise::layers {

enum class Slot : int { kValue = 0, kGradient = 1, kAdamM = 2, kAdamV = 3 };
constexpr int kSlotCount = 4;
const char* slot_suffix(Slot s);  // "", ".grad", ".adamM", ".adamV"

struct TableEntry {
  std::string name;
  const TensorRow* row;
  Part part;
  int layer;  // the block's index (0 for the input and the readout)
  DimValues dims;
  std::uint64_t offset, size;  // floats, within the buffer
  std::uint32_t stream;        // seeded parameters: their rng stream; otherwise 0
};

struct StackTable {
  std::vector<TableEntry> parameters, activations;
  std::uint64_t parameter_floats = 0, activation_floats = 0;
  // Entry index by (part, layer, field), -1 where the spec does not need the row.
  std::vector<int> parameter_index, activation_index;

  // Bytes of the four parameter buffers and the activations, checked (overflow: !ok()).
  CheckedU64 bytes() const;
  int parameter(Part part, int layer, int field) const;
  int activation(Part part, int layer, int field) const;
};

// Fails only if a size overflows 64 bits (validate_spec bounds each dimension, not products).
Status plan_stack(const ModelSpec& spec, std::uint64_t capacity, StackTable* out);

// Multiply-adds of one forward pass over one sequence (the work a call is budgeted by).
double forward_multiply_adds(const ModelSpec& spec);

}  // namespace headwise::layers
