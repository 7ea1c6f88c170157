// Fuzz target: any bytes become a configuration and data. A configuration the core refuses must be
// refused cleanly (a message, no model, no allocation); an accepted one must give
// loop == fused == the double-precision reference.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "model.hpp"
#include "reference_mha.hpp"
#include "rng.hpp"

namespace {

using headwise::Config;
using headwise::Model;
using headwise::TensorId;

class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::int64_t int64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return static_cast<std::int64_t>(v);
  }
  bool empty() const { return pos_ >= size_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_, pos_ = 0;
};

[[noreturn]] void fail(const char* what, const Config& c) {
  std::fprintf(stderr,
               "FUZZ CHECK FAILED: %s\n  batch=%lld tokens=%lld d_model=%lld heads=%lld "
               "head_dim=%lld causal=%d bias=%d\n",
               what, (long long)c.batch, (long long)c.tokens, (long long)c.d_model,
               (long long)c.heads, (long long)c.head_dim, c.causal, c.bias);
  std::abort();
}

// |a - r| <= atol + rtol * |r| with atol scaled to the magnitude of the data.
void check_close(const char* what, const float* actual, const std::vector<double>& ref,
                 double scale, const Config& c) {
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double a = actual[i], r = ref[i];
    if (std::isinf(r) || std::isinf(a)) {
      if (a != r) fail(what, c);
      continue;
    }
    if (!(std::fabs(a - r) <= 1e-5 * scale + 1e-4 * std::fabs(r))) {
      std::fprintf(stderr, "%s[%zu]: got %.9g, reference %.9g (scale %g)\n", what, i, a, r, scale);
      fail(what, c);
    }
  }
}

Config read_config(ByteReader& in) {
  Config c;
  const std::uint8_t mode = in.byte();
  if (mode % 8 == 0) {  // arbitrary sizes: almost always refused
    c.batch = in.int64(), c.tokens = in.int64(), c.d_model = in.int64();
    c.heads = in.int64(), c.head_dim = in.int64();
  } else {
    c.batch = 1 + in.byte() % 3;
    c.tokens = 1 + in.byte() % 140;  // crosses the attention kernel's 32-row and 128-key tiles
    c.heads = 1 + in.byte() % 8;
    const std::int64_t hd = 1 + in.byte() % 20;
    if (in.byte() & 1) {
      c.head_dim = hd;
      c.d_model = 1 + (in.byte() * 3 + in.byte()) % 300;  // crosses the GEMM's 256-deep blocks
    } else {
      c.d_model = c.heads * hd + (mode % 8 == 1 ? 1 : 0);  // mode 1 breaks the dimension rule
    }
  }
  const std::uint8_t flags = in.byte();
  c.causal = flags & 1;
  c.bias = flags & 2;
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteReader in(data, size);
  const Config c = read_config(in);
  const bool intermediates = in.byte() & 1;
  const std::uint32_t seed = in.byte();
  headwise::Limits limits;
  limits.memory_budget_bytes = 64u << 20;

  const headwise::Status verdict = headwise::validate(c, limits);
  std::unique_ptr<Model> model;
  const headwise::Status created = Model::create(c, limits, seed, &model);
  if (!verdict.is_ok()) {
    if (created.is_ok() || model != nullptr) fail("a refused configuration created a model", c);
    if (created.message() != verdict.message() || created.message().empty())
      fail("refusal messages differ", c);
    return 0;
  }
  if (!created.is_ok() || !model) fail("a valid configuration was not created", c);
  // Large accepted configurations (possible through the arbitrary-size mode) are only created:
  // the quadratic reference would take minutes and gigabytes.
  const headwise::layers::AttentionShape& d = model->shape();
  const double work = double(d.batch) * d.heads * d.tokens * d.tokens * (d.head_dim + d.d_model);
  if (work > 2e7) return 0;

  // Data: the seeded input, then bytes overwrite inputs and weights with values in [-4, 4).
  float* x = model->tensor(TensorId::kInput);
  const std::size_t nx = model->tensor_size(TensorId::kInput);
  headwise::fill_uniform(x, nx, seed, 9, 1.0f);
  const TensorId targets[] = {TensorId::kInput, TensorId::kWq, TensorId::kWk, TensorId::kWv,
                              TensorId::kWout};
  double scale = 1.0;
  while (!in.empty()) {
    const TensorId id = targets[in.byte() % 5];
    const std::size_t n = model->tensor_size(id);
    const std::size_t at = (std::size_t(in.byte()) << 8 | in.byte()) % n;
    const float value = static_cast<std::int8_t>(in.byte()) / 32.0f;
    model->tensor(id)[at] = value;
    scale = std::max(scale, double(std::fabs(value)) * 4.0);
  }
  scale = scale * scale * scale;  // projections, scores and output multiply three magnitudes

  if (intermediates && !model->keep_intermediates(true).is_ok()) fail("keep_intermediates", c);
  if (!model->run(headwise::Step::kForwardLoop).is_ok()) fail("loop run", c);
  const std::vector<float> loop(
      model->tensor(TensorId::kOutput),
      model->tensor(TensorId::kOutput) + model->tensor_size(TensorId::kOutput));
  if (!model->run(headwise::Step::kForwardFused).is_ok()) fail("fused run", c);

  auto bias = [&](TensorId id) { return model->shape().bias ? model->tensor(id) : nullptr; };
  const headwise::testing::RefWeights w{
      model->tensor(TensorId::kWq), model->tensor(TensorId::kWk),
      model->tensor(TensorId::kWv), model->tensor(TensorId::kWout),
      bias(TensorId::kBq),          bias(TensorId::kBk),
      bias(TensorId::kBv),          bias(TensorId::kBout)};
  const auto ref = headwise::testing::reference_mha(
      {d.batch, d.tokens, d.d_model, d.heads, d.head_dim, d.causal}, w, x);
  check_close("fused output", model->tensor(TensorId::kOutput), ref.output, scale, c);
  check_close("loop output", loop.data(), ref.output, scale, c);
  if (intermediates) {
    check_close("scores", model->tensor(TensorId::kScores), ref.scores, scale, c);
    check_close("attention", model->tensor(TensorId::kAttention), ref.attention, 1.0, c);
  }
  return 0;
}
