// The tiny model of the "latest verb and latest noun" task, forward and backward on a batch:
//   x0 = token_embedding[w] + position_embedding[t]                     (B, 12, D)
//   one causal multi-head attention layer with biases, residual          (only at "?": see below)
//   h1 = x0[11] + attention(x0)[11];  h2 = h1 + relu(h1 W1 + b1) W2 + b2
//   logits = h2 W_readout + b_readout;  loss = mean softmax cross-entropy
// The loss reads position 11 only, so work that cannot reach it is skipped: the query, the
// attention row, the MLP and the readout run at position 11 alone; keys and values at all 12.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "classifier_table.hpp"
#include "status.hpp"

namespace headwise::train {

struct ClassifierShape {
  std::size_t d_model = 32, heads = 2, mlp = 64, classes = 64;
  std::size_t head_dim() const { return d_model / heads; }
};

struct BatchResult {
  double loss = 0;  // mean over the batch (0 without targets)
  std::size_t correct = 0;
};

Status validate_shape(const ClassifierShape& s);

class Classifier {
 public:
  // Parameters seeded from seed by their rows' roles (classifier_table.hpp; Linear weights and
  // biases uniform in +-1/sqrt(fan_in) as PyTorch's Linear, embeddings uniform in +-sqrt(3):
  // variance 1 like PyTorch's N(0, 1), but bit exact on every platform, no log or cos).
  // Gradients and moments start at zero.
  Classifier(const ClassifierShape& shape, std::uint64_t seed);

  const ClassifierShape& shape() const { return shape_; }
  // The values of the table's dimension symbols for this shape.
  const DimValues& dims() const { return dims_; }
  // Floats in each slot's buffer, and where a parameter sits in it.
  std::size_t parameter_count() const { return buffers_[0].size(); }
  std::size_t offset(Param p) const { return offsets_[p]; }
  std::size_t size(Param p) const { return offsets_[p + 1] - offsets_[p]; }
  float* buffer(Slot s) { return buffers_[static_cast<int>(s)].data(); }
  const float* buffer(Slot s) const { return buffers_[static_cast<int>(s)].data(); }
  float* tensor(Param p, Slot s = Slot::kValue) { return buffer(s) + offsets_[p]; }
  const float* tensor(Param p, Slot s = Slot::kValue) const { return buffer(s) + offsets_[p]; }

  // words: batch x 12 ids. targets may be null (then no loss and no backward). With backward,
  // the gradient buffer is overwritten with d(mean loss)/d(parameters).
  BatchResult run(const int* words, const int* targets, std::size_t batch, bool backward);

  // After run: attention from "?" (batch, heads, 12) and logits (batch, classes).
  const float* attention() const { return p_.data(); }
  const float* logits() const { return logits_.data(); }

 private:
  void forward(const int* words, std::size_t batch);
  void backward(const int* words, std::size_t batch);

  ClassifierShape shape_;
  DimValues dims_{};
  std::size_t offsets_[kParamCount + 1] = {};
  std::vector<float> buffers_[kSlotCount];
  // Activations of the last run (row counts in comments) and backward scratch.
  std::vector<float> x0_, k_, v_;             // (B*12, D), (B*12, C) x2
  std::vector<float> xq_, q_, p_, ctx_, h1_;  // (B, D), (B, C), (B, H, 12), (B, C), (B, D)
  std::vector<float> z_, r_, h2_, logits_, dlogits_;
  std::vector<float> dh2_, dr_, dh1_, dctx_, dq_, dk_, dv_, dx0_, dxq_, scratch_;
};

}  // namespace headwise::train
