#include "stack.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <utility>

#include "attention.hpp"
#include "embedding.hpp"
#include "layernorm.hpp"
#include "linalg.hpp"
#include "mlp.hpp"
#include "rng.hpp"

namespace headwise::layers {

namespace {

// Adds the rows of `from` (per sequence: count rows) into rows first.. of `to` (per sequence:
// tokens rows), for n sequences of width floats each.
void add_rows_at(std::size_t n, std::size_t tokens, std::size_t first, std::size_t count,
                 std::size_t width, const float* from, float* to) {
  for (std::size_t b = 0; b < n; ++b) {
    const float* f = from + b * count * width;
    float* t = to + (b * tokens + first) * width;
    for (std::size_t i = 0; i < count * width; ++i) t[i] += f[i];
  }
}

void add_to(std::size_t count, const float* from, float* to) {
  for (std::size_t i = 0; i < count; ++i) to[i] += from[i];
}

// A block's attention tensors: heads in place, the weights P kept for the backward (the tape).
template <typename Activation>
AttentionTensors block_tensors(Activation A) {
  return {A(kXq),  A(kQ),   A(kK),   A(kV),         nullptr,    nullptr,
          nullptr, nullptr, nullptr, A(kAttention), A(kConcat), {nullptr}};
}

}  // namespace

Status Stack::plan(const ModelSpec& spec, std::uint64_t capacity, StackTable* table) {
  Status s = validate_spec(spec);
  if (!s.is_ok()) return s;
  if (capacity < 1) return Status::error("a stack needs room for at least one sequence");
  return plan_stack(spec, capacity, table);
}

Status Stack::create(const ModelSpec& spec, std::uint64_t capacity, std::uint64_t seed,
                     std::unique_ptr<Stack>* out) {
  StackTable table;
  Status s = plan(spec, capacity, &table);
  if (!s.is_ok()) return s;
  const CheckedU64 bytes = table.bytes();
  if (!bytes.ok() || bytes.value() > static_cast<std::uint64_t>(static_cast<std::size_t>(-1))) {
    return Status::error("this model is too large for this machine's address space");
  }
  std::unique_ptr<Stack> m(new (std::nothrow) Stack());
  if (!m) return Status::error("out of memory allocating the model");
  m->spec_ = spec;
  m->capacity_ = static_cast<std::size_t>(capacity);
  for (FloatBuffer& b : m->buffers_) {
    if (!b.allocate(static_cast<std::size_t>(table.parameter_floats))) {
      return Status::error("out of memory allocating the model's parameters");
    }
  }
  if (!m->activations_.allocate(static_cast<std::size_t>(table.activation_floats))) {
    return Status::error("out of memory allocating the model's activations");
  }
  m->table_ = std::move(table);
  for (const TableEntry& e : m->table_.parameters) {
    float* p = m->buffers_[0].data() + e.offset;
    const std::size_t n = static_cast<std::size_t>(e.size);
    switch (e.row->role) {
      case Role::kNormGain:
        std::fill_n(p, n, 1.0f);
        break;
      case Role::kEmbedding:
        fill_uniform(p, n, seed, e.stream, std::sqrt(3.0f));
        break;
      case Role::kWeight:
      case Role::kBias:
        fill_uniform(p, n, seed, e.stream,
                     fan_in_bound(static_cast<std::size_t>(e.dims[int(e.row->fan_in)])));
        break;
      default:
        break;  // LayerNorm biases start at zero, as allocated
    }
  }
  *out = std::move(m);
  return Status::ok();
}

float* Stack::param(Part part, int layer, int field, Slot slot) {
  const int i = table_.parameter(part, layer, field);
  return i < 0 ? nullptr : buffers_[int(slot)].data() + table_.parameters[std::size_t(i)].offset;
}

float* Stack::act(Part part, int layer, int field) {
  const int i = table_.activation(part, layer, field);
  return i < 0 ? nullptr : activations_.data() + table_.activations[std::size_t(i)].offset;
}

const float* Stack::attention(std::size_t layer) const {
  const int i = table_.activation(Part::kBlock, int(layer), kAttention);
  return activations_.data() + table_.activations[std::size_t(i)].offset;
}

const float* Stack::logits() const {
  const int i = table_.activation(Part::kReadout, 0, kLogits);
  return activations_.data() + table_.activations[std::size_t(i)].offset;
}

LossSums Stack::run(const int* ids, std::size_t n, const Targets& targets, bool backward_too) {
  forward(ids, n);
  if (!targets.classes) return LossSums{};
  const std::size_t rows = n * spec_.read_tokens();
  const LossSums sums =
      cross_entropy(rows, spec_.classes, logits(), targets.classes, targets.mask, targets.groups,
                    backward_too ? act(Part::kReadout, 0, kDLogits) : nullptr, targets.divisor);
  if (backward_too) backward(ids, n);
  return sums;
}

void Stack::forward(const int* ids, std::size_t n) {
  const ModelSpec& s = spec_;
  const std::size_t T = s.tokens, D = s.d_model;
  float* x = act(Part::kInput, 0, kX0);
  embedding_forward({n * T, T, D, s.position}, ids, param(Part::kInput, 0, kTokenEmbedding),
                    param(Part::kInput, 0, kPositionEmbedding), x);
  for (int l = 0; l < int(s.layers); ++l) {
    const std::size_t Tl = s.out_tokens(std::size_t(l)), qf = T - Tl;
    auto P = [&](int field) { return param(Part::kBlock, l, field); };
    auto A = [&](int field) { return act(Part::kBlock, l, field); };
    const float* a = x;
    if (s.layer_norm) {
      layernorm_forward(n * T, D, x, P(kLn1Gain), P(kLn1Bias), A(kLn1Out), A(kLn1Mean),
                        A(kLn1Rstd));
      a = A(kLn1Out);
    }
    const unsigned char* zero = zero_heads_.empty() ? nullptr : &zero_heads_[l * s.heads];
    AttentionShape shape = s.attention(n, qf);
    shape.zero_heads = zero;
    const AttentionParams w{P(kWq), P(kBq), P(kWk), P(kBk), P(kWv), P(kBv), P(kWout), P(kBout)};
    const AttentionTensors tape = block_tensors(A);
    float* h = A(kH);
    attention_forward(shape, w, a, tape, h);
    if (qf == 0) {
      add_to(n * T * D, x, h);
    } else {
      for (std::size_t b = 0; b < n; ++b) add_to(Tl * D, x + (b * T + qf) * D, h + b * Tl * D);
    }
    x = h;
    if (s.mlp == 0) continue;
    const float* bin = h;
    if (s.layer_norm) {
      layernorm_forward(n * Tl, D, h, P(kLn2Gain), P(kLn2Bias), A(kLn2Out), A(kLn2Mean),
                        A(kLn2Rstd));
      bin = A(kLn2Out);
    }
    float* out = A(kOut);
    mlp_forward({n * Tl, D, s.mlp, s.activation}, {P(kW1), P(kB1), P(kW2), P(kB2)}, bin, A(kZ),
                A(kR), out);
    add_to(n * Tl * D, h, out);
    x = out;
  }
  const std::size_t rows = n * s.read_tokens();
  const float* xf = x;
  if (s.layer_norm) {
    layernorm_forward(rows, D, x, param(Part::kReadout, 0, kLnFGain),
                      param(Part::kReadout, 0, kLnFBias), act(Part::kReadout, 0, kLnFOut),
                      act(Part::kReadout, 0, kLnFMean), act(Part::kReadout, 0, kLnFRstd));
    xf = act(Part::kReadout, 0, kLnFOut);
  }
  matmul(rows, s.classes, D, xf, param(Part::kReadout, 0, kWReadout),
         param(Part::kReadout, 0, kBReadout), act(Part::kReadout, 0, kLogits));
}

void Stack::backward(const int* ids, std::size_t n) {
  const ModelSpec& s = spec_;
  const std::size_t T = s.tokens, D = s.d_model, K = s.classes, rows = n * s.read_tokens();
  const Slot G = Slot::kGradient;
  auto R = [&](int field, Slot slot = Slot::kValue) {
    return param(Part::kReadout, 0, field, slot);
  };
  auto RA = [&](int field) { return act(Part::kReadout, 0, field); };
  // The residual stream's input to block l (x0, or block l-1's output) and its output.
  auto block_output = [&](int l) -> float* {
    if (l < 0) return act(Part::kInput, 0, kX0);
    return s.mlp > 0 ? act(Part::kBlock, l, kOut) : act(Part::kBlock, l, kH);
  };
  float* dcur = RA(kDResidualA);  // d(loss)/d(the residual stream at the current level)
  float* dspare = RA(kDResidualB);
  float* dnorm = RA(kDNorm);
  // Readout.
  const float* x_last = block_output(int(s.layers) - 1);
  const float* xf = s.layer_norm ? RA(kLnFOut) : x_last;
  const float* dlogits = RA(kDLogits);
  matmul_at_b(D, K, rows, xf, dlogits, R(kWReadout, G));
  if (float* db = R(kBReadout, G)) column_sums(rows, K, dlogits, db);
  if (s.layer_norm) {
    matmul_a_bt(rows, D, K, dlogits, R(kWReadout), dnorm);
    std::fill_n(dcur, rows * D, 0.0f);
    layernorm_backward(rows, D, x_last, R(kLnFGain), RA(kLnFMean), RA(kLnFRstd), dnorm, dcur,
                       R(kLnFGain, G), R(kLnFBias, G));
  } else {
    matmul_a_bt(rows, D, K, dlogits, R(kWReadout), dcur);
  }
  // Blocks, last to first. dcur holds d(block output) (n * Tl rows) on entry, d(block input)
  // (n * T rows) on exit.
  for (int l = int(s.layers) - 1; l >= 0; --l) {
    const std::size_t Tl = s.out_tokens(std::size_t(l)), qf = T - Tl, out_rows = n * Tl;
    auto P = [&](int field, Slot slot = Slot::kValue) {
      return param(Part::kBlock, l, field, slot);
    };
    auto A = [&](int field) { return act(Part::kBlock, l, field); };
    const float* x_in = block_output(l - 1);
    float* dh = dcur;  // d(h): the attention's residual output
    if (s.mlp > 0) {
      std::copy_n(dcur, out_rows * D, dspare);  // out = h + mlp(h): the residual's share
      const MlpShape ms{out_rows, D, s.mlp, s.activation};
      const MlpParams mw{P(kW1), P(kB1), P(kW2), P(kB2)};
      const MlpGrads mg{P(kW1, G), P(kB1, G), P(kW2, G), P(kB2, G)};
      if (s.layer_norm) {
        std::fill_n(dnorm, out_rows * D, 0.0f);
        mlp_backward(ms, mw, A(kLn2Out), A(kZ), A(kR), dcur, mg, RA(kDHidden), dnorm);
        layernorm_backward(out_rows, D, A(kH), P(kLn2Gain), A(kLn2Mean), A(kLn2Rstd), dnorm, dspare,
                           P(kLn2Gain, G), P(kLn2Bias, G));
      } else {
        mlp_backward(ms, mw, A(kH), A(kZ), A(kR), dcur, mg, RA(kDHidden), dspare);
      }
      std::swap(dcur, dspare);
      dh = dcur;
    }
    // h = x_in[query rows] + attention(a), a = LN1(x_in) or x_in.
    const AttentionShape shape = s.attention(n, qf);
    const AttentionParams w{P(kWq), P(kBq), P(kWk), P(kBk), P(kWv), P(kBv), P(kWout), P(kBout)};
    const AttentionGrads g{P(kWq, G), P(kBq, G), P(kWk, G),   P(kBk, G),
                           P(kWv, G), P(kBv, G), P(kWout, G), P(kBout, G)};
    const AttentionTensors tape = block_tensors(A);
    const AttentionScratch scratch{RA(kDConcat), RA(kDQ), RA(kDK), RA(kDV), RA(kScoreScratch)};
    float* dx = dspare;  // becomes d(x_in), n * T rows
    if (!s.layer_norm) {
      // The query path's gradient is added straight onto the residual's (dh is read first).
      attention_backward(shape, w, x_in, tape, dh, g, scratch, dx, dh);
      if (qf == 0) {
        add_to(n * T * D, dh, dx);
      } else {
        add_rows_at(n, T, qf, Tl, D, dh, dx);
      }
    } else {
      std::fill_n(dnorm, out_rows * D, 0.0f);
      attention_backward(shape, w, A(kLn1Out), tape, dh, g, scratch, dx, dnorm);
      add_rows_at(n, T, qf, Tl, D, dnorm, dx);  // dx is now d(a)
      std::fill_n(dnorm, n * T * D, 0.0f);
      add_rows_at(n, T, qf, Tl, D, dh, dnorm);  // the residual's share of d(x_in)
      layernorm_backward(n * T, D, x_in, P(kLn1Gain), A(kLn1Mean), A(kLn1Rstd), dx, dnorm,
                         P(kLn1Gain, G), P(kLn1Bias, G));
      std::copy_n(dnorm, n * T * D, dx);
    }
    std::swap(dcur, dspare);
  }
  embedding_backward({n * T, T, D, s.position}, s.vocab, ids, dcur,
                     param(Part::kInput, 0, kTokenEmbedding, G),
                     param(Part::kInput, 0, kPositionEmbedding, G));
}

}  // namespace headwise::layers
