// What a model is: a stack of blocks over a token embedding, built from this spec alone
// (nanoGPT's GPTConfig). Depth, width, heads, MLP, positions, mask and LayerNorm are fields, not
// code paths. The readout reads the last position (a classifier at "?") or every position
// (next-token prediction); the last block then computes queries only where it is read.
//
//   x0 = tokenEmbedding[w] (+ positionEmbedding[t] | + PE(t))                (B, T, D)
//   per block:  a = LN1(x) | x;   x = x[q rows] + attention(a)                 (rope, alibi inside)
//               b = LN2(x) | x;   x = x + W2 act(W1 b + b1) + b2               (if mlp > 0)
//   logits = (LNf(x) | x) wReadout + bReadout                                 (B, Tq, K)
#pragma once

#include <cstddef>

#include "attention_shape.hpp"
#include "positions/position_kind.hpp"
#include "status.hpp"

namespace headwise::layers {

enum class Activation { kRelu, kGelu };

// The library's limits, the one place they are written: validate_spec and the trainer's option
// table (what JavaScript checks before calling in) both read them.
struct SpecLimit {
  const char* name;  // as JavaScript spells the option
  std::size_t lo, hi;
};
constexpr SpecLimit kVocabLimit{"vocabulary", 1, 4096}, kTokensLimit{"tokens", 1, 512},
    kDModelLimit{"dModel", 1, 1024}, kHeadsLimit{"heads", 1, 64}, kHeadDimLimit{"headDim", 1, 1024},
    kLayersLimit{"layers", 1, 8}, kMlpLimit{"mlpWidth", 0, 4096}, kClassesLimit{"classes", 1, 4096};
enum class Readout { kLast, kEvery };

struct ModelSpec {
  std::size_t vocab = 21, tokens = 12, d_model = 32, heads = 2, head_dim = 16, layers = 1;
  std::size_t mlp = 64;  // 0: attention-only blocks
  std::size_t classes = 64;
  Activation activation = Activation::kRelu;
  const PositionKind* position = nullptr;  // null: none
  bool causal = true, layer_norm = false, bias = true;
  Readout readout = Readout::kLast;
  // K/V heads of each block's attention (layers/attention.hpp): 0 is heads; must divide heads.
  std::size_t kv_heads = 0;

  // Each block's attention layer (the one description of it) over n sequences, queries from qf.
  AttentionShape attention(std::size_t n, std::size_t qf) const {
    AttentionShape a{n, tokens, d_model, heads, head_dim, qf, causal, position};
    a.kv_heads = kv_heads;
    a.bias = bias;
    return a;
  }
  // Positions the readout (and the last block's queries) cover.
  std::size_t read_tokens() const { return readout == Readout::kLast ? 1 : tokens; }
  // Positions block l computes outputs for: all but in the last block.
  std::size_t out_tokens(std::size_t l) const { return l + 1 == layers ? read_tokens() : tokens; }
};

// Sizes within the library's limits; every size of every row then fits comfortably in 64 bits.
Status validate_spec(const ModelSpec& s);

const char* activation_name(Activation a);

}  // namespace headwise::layers
