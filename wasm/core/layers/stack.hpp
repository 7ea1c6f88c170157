// A model built from a spec: the input layer, `layers` blocks and the readout, with every
// parameter and activation a row of one table (stack_table.hpp) and one allocation each. Forward
// is a loop over the blocks, backward the same loop in reverse (llm.c's train_gpt2.c).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "cross_entropy.hpp"
#include "float_buffer.hpp"
#include "model_spec.hpp"
#include "stack_table.hpp"
#include "status.hpp"

namespace headwise::layers {

// One batch's rows for the loss: targets, weights and groups per read position (B, Tq).
struct Targets {
  const int* classes;          // null: forward only
  const std::uint8_t* mask;    // null: every row counts
  const std::uint8_t* groups;  // null: every row in group 0
  // The rows the loss is a mean over: 0 = the counted rows given. A slice of a batch passes the
  // whole batch's count, so that the slices' gradients add up to the batch's.
  std::size_t divisor = 0;
};

class Stack {
 public:
  // Bytes a stack of this spec with this capacity (sequences per run) needs, and the table.
  static Status plan(const ModelSpec& spec, std::uint64_t capacity, StackTable* table);
  // Allocates (refusing, never aborting, if memory runs out) and seeds the parameters: weights
  // and biases uniform in +-1/sqrt(fan_in) as PyTorch's Linear, embeddings uniform in +-sqrt(3)
  // (variance 1, like PyTorch's N(0, 1), but bit exact everywhere), LayerNorm gains 1, biases 0.
  static Status create(const ModelSpec& spec, std::uint64_t capacity, std::uint64_t seed,
                       std::unique_ptr<Stack>* out);

  const ModelSpec& spec() const { return spec_; }
  const StackTable& table() const { return table_; }
  std::size_t capacity() const { return capacity_; }
  std::size_t parameter_count() const { return buffers_[0].size(); }
  float* buffer(Slot s) { return buffers_[int(s)].data(); }
  const float* buffer(Slot s) const { return buffers_[int(s)].data(); }

  // Forward over n <= capacity sequences of spec.tokens ids (each < vocab, checked by the
  // caller); with targets the loss, and with backward the gradient buffer is overwritten with
  // d(mean loss)/d(parameters).
  LossSums run(const int* ids, std::size_t n, const Targets& targets, bool backward);

  // After run, for the n sequences: block l's attention (n, H, Tq_l, T) and the logits (n, Tq, K).
  const float* attention(std::size_t layer) const;
  const float* logits() const;

  // Ablation: forwards from now on zero the contexts of the heads whose byte is nonzero (layers
  // x heads, layer-major; empty: none) before W_out. Not for training (the backward ignores it).
  void set_zero_heads(std::vector<unsigned char> mask) { zero_heads_ = std::move(mask); }

 private:
  Stack() = default;
  float* param(Part part, int layer, int field, Slot slot = Slot::kValue);
  float* act(Part part, int layer, int field);
  void forward(const int* ids, std::size_t n);
  void backward(const int* ids, std::size_t n);

  ModelSpec spec_;
  StackTable table_;
  std::size_t capacity_ = 0;
  FloatBuffer buffers_[kSlotCount];
  FloatBuffer activations_;
  std::vector<unsigned char> zero_heads_;
};

}  // namespace headwise::layers
