// Names of every tensor a model holds, shared by the core, the bindings and the JS API.
#pragma once

namespace headwise {

enum class TensorId : int {
  kWq = 0,       // (d_model, H*hd)
  kWk = 1,       // (d_model, H*hd)
  kWv = 2,       // (d_model, H*hd)
  kWout = 3,     // (H*hd, d_model)
  kBq = 4,       // (H*hd)
  kBk = 5,       // (H*hd)
  kBv = 6,       // (H*hd)
  kBout = 7,     // (d_model)
  kInput = 8,    // x: (B, T, d_model)
  kQ = 9,        // project: (B, T, H*hd)
  kK = 10,       // project: (B, T, H*hd)
  kV = 11,       // project: (B, T, H*hd)
  kQHeads = 12,  // split: (B, H, T, hd)
  kKHeads = 13,  // split: (B, H, T, hd)
  kVHeads = 14,  // split: (B, H, T, hd)
  kScores = 15,     // attend, only when intermediates are kept: (B, H, T, T)
  kAttention = 16,  // attend, only when intermediates are kept: (B, H, T, T)
  kContextHeads = 17,  // attend: (B, H, T, hd)
  kConcat = 18,        // merge: (B, T, H*hd)
  kOutput = 19,        // out-project: (B, T, d_model)
};
constexpr int kTensorCount = 20;

enum class Step : int {
  kProject = 0,     // input -> q, k, v
  kSplit = 1,       // q, k, v -> per-head q, k, v
  kAttend = 2,      // per-head q, k, v -> per-head context (+ scores, attention)
  kMerge = 3,       // per-head context -> concat
  kOutProject = 4,  // concat -> output
  kForwardFused = 5,
  kForwardLoop = 6,
};
constexpr int kStepCount = 7;

}  // namespace headwise
