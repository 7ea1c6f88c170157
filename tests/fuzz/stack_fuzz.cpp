// Fuzz target: any bytes become a layer stack's spec, a batch and some parameter values. A spec the
// library refuses must be refused cleanly (a message, no stack); an accepted small one must run
// forward and backward twice to the same numbers, with the loss of the double reference
// (reference_stack.hpp) and gradients matching its central differences (away from ReLU kinks).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "layers/positions/position_kind.hpp"
#include "layers/stack.hpp"
#include "reference_stack.hpp"
#include "rng.hpp"

namespace {

using namespace headwise::layers;

class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return v;
  }
  bool empty() const { return pos_ >= size_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_, pos_ = 0;
};

std::string describe(const ModelSpec& s, std::size_t batch) {
  char text[320];
  std::snprintf(text, sizeof text,
                "layers=%zu tokens=%zu d_model=%zu heads=%zu head_dim=%zu mlp=%zu vocab=%zu "
                "classes=%zu batch=%zu position=%s causal=%d ln=%d bias=%d every=%d gelu=%d",
                s.layers, s.tokens, s.d_model, s.heads, s.head_dim, s.mlp, s.vocab, s.classes,
                batch, s.position ? s.position->name : "none", s.causal, s.layer_norm, s.bias,
                s.readout == Readout::kEvery, s.activation == Activation::kGelu);
  return text;
}

[[noreturn]] void fail(const char* what, const ModelSpec& s, std::size_t batch) {
  std::fprintf(stderr, "STACK FUZZ CHECK FAILED: %s\n  %s\n", what, describe(s, batch).c_str());
  std::abort();
}

ModelSpec read_spec(ByteReader& in, std::size_t* batch) {
  ModelSpec s;
  const std::uint8_t mode = in.byte();
  const PositionKind* const kinds[] = {nullptr, find_position_kind("learned"),
                                       find_position_kind("sinusoidal"), find_position_kind("rope"),
                                       find_position_kind("alibi")};
  if (mode % 8 == 0) {  // arbitrary sizes: almost always refused
    s.layers = in.u64(), s.tokens = in.u64(), s.d_model = in.u64(), s.heads = in.u64();
    s.head_dim = in.u64(), s.mlp = in.u64(), s.vocab = in.u64(), s.classes = in.u64();
    *batch = 1 + in.byte() % 3;
  } else {
    s.layers = 1 + in.byte() % 3;
    s.tokens = 1 + in.byte() % 19;
    s.d_model = 1 + in.byte() % 17;
    s.heads = 1 + in.byte() % 4;
    s.head_dim = 1 + in.byte() % 9;
    s.mlp = in.byte() % 2 ? 0 : 1 + in.byte() % 12;
    s.vocab = 1 + in.byte() % 9;
    s.classes = 1 + in.byte() % 7;
    *batch = 1 + in.byte() % 3;
  }
  const std::uint8_t flags = in.byte();
  s.causal = flags & 1;
  s.layer_norm = flags & 2;
  s.bias = flags & 4;
  s.readout = flags & 8 ? Readout::kEvery : Readout::kLast;
  s.activation = flags & 16 ? Activation::kGelu : Activation::kRelu;
  s.position = kinds[in.byte() % 5];
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteReader in(data, size);
  std::size_t batch = 1;
  const ModelSpec spec = read_spec(in, &batch);
  const std::uint32_t seed = in.byte();

  const headwise::Status verdict = validate_spec(spec);
  std::unique_ptr<Stack> stack;
  const headwise::Status created = Stack::create(spec, batch, seed, &stack);
  if (!verdict.is_ok()) {
    if (created.is_ok() || stack != nullptr) fail("a refused spec created a stack", spec, batch);
    if (created.message().empty()) fail("a refusal without a message", spec, batch);
    return 0;
  }
  if (!created.is_ok() || !stack) {
    // Accepted sizes may still be too big to allocate here; that must be said, not crash.
    if (created.message().empty()) fail("an allocation refusal without a message", spec, batch);
    return 0;
  }
  const std::size_t T = spec.tokens, reads = batch * spec.read_tokens();
  const double work = double(stack->parameter_count()) * double(batch * T) * double(spec.layers);
  if (work > 4e6) return 0;  // large accepted stacks are only created: the reference is slow

  // The batch from the bytes; then bytes overwrite a few parameters with values in [-1, 1).
  reference::Problem pr{spec, batch, {}, {}, {}};
  for (std::size_t i = 0; i < batch * T; ++i) pr.ids.push_back(int(in.byte() % spec.vocab));
  for (std::size_t r = 0; r < reads; ++r) {
    pr.targets.push_back(int(in.byte() % spec.classes));
    pr.mask.push_back(r == 0 || (in.byte() & 3) != 0);
  }
  float* values = stack->buffer(Slot::kValue);
  const std::size_t n_params = stack->parameter_count();
  while (!in.empty()) {
    const std::size_t at = (std::size_t(in.byte()) << 8 | in.byte()) % n_params;
    // Never exactly 0: an all-zero embedding puts every ReLU on its kink at once, where the
    // library's subgradient (0 at 0) and the reference's central difference rightly differ.
    values[at] = (static_cast<std::int8_t>(in.byte()) + 0.5f) / 128.0f;
  }
  reference::Params P;
  for (const TableEntry& e : stack->table().parameters)
    P[e.name] = reference::Vec(values + e.offset, values + e.offset + e.size);

  const Targets targets{pr.targets.data(), pr.mask.data(), nullptr};
  const double loss = stack->run(pr.ids.data(), batch, targets, true).loss;
  const std::vector<float> grads(stack->buffer(Slot::kGradient),
                                 stack->buffer(Slot::kGradient) + n_params);
  if (stack->run(pr.ids.data(), batch, targets, true).loss != loss)
    fail("a rerun differs", spec, batch);
  if (!std::equal(grads.begin(), grads.end(), stack->buffer(Slot::kGradient)))
    fail("a rerun's gradients differ", spec, batch);

  const double ref = reference::reference_loss(pr, P);
  if (!(std::fabs(loss - ref) <= 1e-4 + 1e-4 * std::fabs(ref))) {
    std::fprintf(stderr, "loss %.9g, reference %.9g\n", loss, ref);
    fail("loss", spec, batch);
  }
  // A few gradients per parameter row against the reference's central differences.
  for (const TableEntry& e : stack->table().parameters) {
    reference::Vec& v = P[e.name];
    const std::size_t stride = std::max<std::size_t>(1, v.size() / 3);
    for (std::size_t i = (seed % stride); i < v.size(); i += stride) {
      const double keep = v[i], h = 1e-5;
      v[i] = keep + h;
      const double up = reference::reference_loss(pr, P);
      v[i] = keep - h;
      const double down = reference::reference_loss(pr, P);
      v[i] = keep;
      // Bytes make exact zeros common, so a ReLU input can sit on its kink, where the one-sided
      // slopes differ and no derivative exists: such a parameter is skipped.
      const double right = (up - ref) / h, left = (ref - down) / h;
      if (std::fabs(right - left) > 1e-3 + 1e-3 * std::fabs(right)) continue;
      const double fd = (up - down) / (2 * h), got = grads[e.offset + i];
      if (!(std::fabs(got - fd) <= 2e-4 + 2e-3 * std::fabs(fd))) {
        std::fprintf(stderr, "%s[%zu]: gradient %.9g, central difference %.9g\n", e.name.c_str(), i,
                     got, fd);
        fail("gradient", spec, batch);
      }
    }
  }
  return 0;
}
