// The explorer's multi-head attention layer: the core's one attention operator
// (layers/attention.hpp) with its weights and every buffer the lecture names, as rows of the
// tensor table. Every tensor can be read or written by TensorId; every stage can run alone.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "config.hpp"
#include "float_buffer.hpp"
#include "layers/kv_cache.hpp"
#include "status.hpp"
#include "tensor_table.hpp"

namespace headwise {

class Model {
 public:
  // Validates the configuration, allocates everything, and fills the weights from `seed`
  // (see rng.hpp). Biases are zero-sized unless config.bias.
  static Status create(const Config& config, const Limits& limits, std::uint64_t seed,
                       std::unique_ptr<Model>* out);

  // The configuration with head_dim resolved: the layer's shape, which it runs.
  const Config& shape() const { return shape_; }

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

  // Causal decoding with a KV cache of `tokens` positions per sequence (model_decode.cpp).
  // prepare_decode() allocates the cache on first use (checked against the budget) and refuses a
  // full one; the caller then writes decode_input() (B, D) and decode() writes decode_output().
  Status prepare_decode();
  Status decode();
  float* decode_input() { return decode_.data(); }
  float* decode_output();
  std::size_t cache_length() const { return cache_.length; }
  std::uint64_t cache_bytes() const;  // the K and V held (0 before the first step)
  void reset_cache();                 // frees the cache; decoding starts again at position 0

 private:
  Model() = default;
  static std::size_t index(TensorId id) { return static_cast<std::size_t>(id); }
  const float* bias(TensorId id) { return shape_.bias ? tensor(id) : nullptr; }
  layers::AttentionParams params();
  layers::AttentionTensors tensors();
  // x, or x + positions (written to "positioned") for a kind that enters at the input.
  const float* positioned_input();

  Limits limits_;
  Config shape_{};
  DimValues dim_values_{};
  bool keeping_ = false;
  std::array<FloatBuffer, kTensorCount> buffers_;  // one per row of tensor_table(), in id order
  // The KV cache: K and V (B, tokens, Ckv) each; decode_ holds the step's x, q, concat and y.
  // Budget check of the layer in that state with the cache it holds (model_decode.cpp).
  Status check_budget_with_cache(bool with_intermediates, std::uint64_t cache_heap_bytes) const;
  std::uint64_t cache_heap_bytes() const;
  FloatBuffer cache_k_, cache_v_, decode_;
  layers::KvCacheView cache_{};
};

}  // namespace headwise
