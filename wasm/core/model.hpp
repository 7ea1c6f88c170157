// The explorer's multi-head attention layer: the core's one attention operator
// (layers/attention.hpp) with its weights and every buffer the lecture names, as rows of the
// tensor table. Every tensor can be read or written by TensorId; every stage can run alone.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "config.hpp"
#include "float_buffer.hpp"
#include "status.hpp"
#include "tensor_table.hpp"

namespace headwise {

class Model {
 public:
  // Validates the configuration, allocates everything, and fills the weights from `seed`
  // (see rng.hpp). Biases are zero-sized unless config.bias.
  static Status create(const Config& config, const Limits& limits, std::uint64_t seed,
                       std::unique_ptr<Model>* out);

  const Config& config() const { return config_; }
  const layers::AttentionShape& shape() const { return shape_; }

  // Null with size 0 for tensors this model does not hold (see each row's Alloc: biases when
  // off, scores when intermediates are not kept).
  float* tensor(TensorId id) { return buffers_[index(id)].data(); }
  std::size_t tensor_size(TensorId id) const { return buffers_[index(id)].size(); }

  // Allocates (or frees) the rows kept only with intermediates (the (B, H, T, T) scores and
  // attention); checked against the budget.
  Status keep_intermediates(bool keep);
  bool keeps_intermediates() const { return keeping_; }

  // Runs one step (or a whole forward pass) on the model's own tensors.
  Status run(Step step);

 private:
  Model() = default;
  static std::size_t index(TensorId id) { return static_cast<std::size_t>(id); }
  const float* bias(TensorId id) { return config_.bias ? tensor(id) : nullptr; }
  layers::AttentionParams params();
  layers::AttentionTensors tensors();
  // x, or x + positions (written to "positioned") for a kind that enters at the input.
  const float* positioned_input();

  Config config_;
  Limits limits_;
  layers::AttentionShape shape_{};
  DimValues dim_values_{};
  bool keeping_ = false;
  std::array<FloatBuffer, kTensorCount> buffers_;  // one per row of tensor_table(), in id order
};

}  // namespace headwise
