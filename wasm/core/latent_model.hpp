// createAttention({ attention: 'mla' }): the core's multi-head latent attention operator
// (layers/latent_attention.hpp) with its seeded weights, its input and output, and its cache for
// causal decoding. It runs only that operator, in either of its two forms (explicit: every head's
// keys and values up-projected; absorbed: W_uk folded into the queries, W_uv into W_out), so the
// two forms' equality is the operator's own. Its tensors are the rows below, the only place they
// are listed; the bindings hand their names and shapes to JavaScript.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "config.hpp"
#include "float_buffer.hpp"
#include "layers/latent_attention.hpp"
#include "status.hpp"

namespace headwise {

// ROW(id, JS name, rng stream (0: not seeded), fan-in symbol): the weights first.
#define HEADWISE_LATENT_TENSORS(ROW) \
  ROW(kWdkv, "wDkv", 21, D)          \
  ROW(kWuk, "wUk", 22, dc)           \
  ROW(kWuv, "wUv", 23, dc)           \
  ROW(kWq, "wq", 24, D)              \
  ROW(kWqr, "wQr", 25, D)            \
  ROW(kWkr, "wKr", 26, D)            \
  ROW(kWout, "wOut", 27, C)          \
  ROW(kInput, "input", 0, none)      \
  ROW(kOutput, "output", 0, none)    \
  ROW(kLatent, "latent", 0, none)    \
  ROW(kRopeKey, "ropeKey", 0, none)  \
  ROW(kAttention, "attention", 0, none)

enum class LatentTensor : int {
#define HEADWISE_LATENT_ENUM(id, ...) id,
  HEADWISE_LATENT_TENSORS(HEADWISE_LATENT_ENUM)
#undef HEADWISE_LATENT_ENUM
      kCount
};
constexpr int kLatentTensorCount = static_cast<int>(LatentTensor::kCount);
constexpr int kLatentWeightCount = static_cast<int>(LatentTensor::kInput);

const char* latent_tensor_name(LatentTensor id);
// 2 for the weights, 4 for attention, 3 for the others.
int latent_tensor_rank(LatentTensor id);

class LatentModel {
 public:
  // Checks the configuration (config.latent) and the memory budget, allocates, seeds the weights.
  static Status create(const Config& config, const Limits& limits, std::uint64_t seed,
                       std::unique_ptr<LatentModel>* out);
  // The budget check of create() alone (Headwise.check).
  static Status validate(const Config& config, const Limits& limits);

  const layers::LatentShape& shape() const { return shape_; }
  // A tensor's dimensions (the first latent_tensor_rank(id)): weights (in, out), input and
  // output (B, T, D), latent (B, T, d_c), ropeKey (B, T, d_r), attention (B, H, T, T).
  std::array<std::size_t, 4> dims(LatentTensor id) const;
  // Null with size 0: attention while it is not kept, ropeKey with ropeDim 0.
  float* tensor(LatentTensor id) { return buffers_[index(id)].data(); }
  std::size_t tensor_size(LatentTensor id) const { return buffers_[index(id)].size(); }

  // input -> output (and latent, ropeKey; attention if keep_attention), in one form.
  Status forward(bool absorbed, bool keep_attention);
  // After the weights are written: the absorbed weights are computed again before their next use.
  void weights_changed() { absorbed_ready_ = false; }

  // Causal decoding with the latent cache ((B, tokens, d_c) and (B, tokens, d_r)), allocated on
  // first use against the budget; the caller writes decode_input() (B, D) before decode().
  Status prepare_decode();
  Status decode();
  float* decode_input() { return step_.empty() ? nullptr : step_.data(); }
  float* decode_output();
  std::size_t cache_length() const { return cache_.length; }
  std::uint64_t cache_bytes() const;  // latent and RoPE key held (0 before the first step)
  void reset_cache();

  // The explicit form's backward at the last forward()'s input and the weights as they are now:
  // the gradients of sum(output * dy). prepare_backward() allocates (budget checked) the buffers
  // gradient(i) views: i < kLatentWeightCount a weight's gradient (its shape), then dx and dy
  // (B, T, D); the caller writes dy before backward(), which runs the explicit forward again with
  // attention kept (output, latent, ropeKey and attention are that forward's) and writes the rest.
  Status prepare_backward();
  Status backward();
  static constexpr int kGradientCount = kLatentWeightCount + 2;
  float* gradient(int i);
  std::size_t gradient_size(int i) const;

 private:
  LatentModel() = default;
  static std::size_t index(LatentTensor id) { return static_cast<std::size_t>(id); }
  layers::LatentParams params();
  layers::LatentAbsorbed absorbed();
  void absorb();

  Limits limits_;
  layers::LatentShape shape_{};
  std::array<FloatBuffer, kLatentTensorCount> buffers_;
  FloatBuffer absorbed_, workspace_;  // W_q W_uk^T and W_uv W_out per head; either form's scratch
  bool absorbed_ready_ = false;
  FloatBuffer cache_c_, cache_kr_, step_;  // step_: x, y (B, D) each, then the step's scratch
  layers::LatentCacheView cache_{};
  bool has_input_ = false;  // a forward() ran: backward() differentiates at its input
  FloatBuffer backward_;    // the weights' gradients, dx, dy, then latent_backward's scratch
};

}  // namespace headwise
