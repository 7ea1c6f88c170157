// Prints the native build's forward outputs for a few configurations as JSON, so the JS tests can
// check that native and wasm agree (tests/js/native-agreement.test.js).
#include <cstdio>
#include <memory>

#include "model.hpp"
#include "rng.hpp"

namespace {

struct Case {
  const char* name;
  headwise::Config config;
  std::uint32_t seed;
};

headwise::Config make(int b, int t, int d, int h, int hd, bool causal, bool bias) {
  headwise::Config c;
  c.batch = b, c.tokens = t, c.d_model = d, c.heads = h, c.head_dim = hd;
  c.causal = causal, c.bias = bias;
  return c;
}

}  // namespace

int main() {
  const Case cases[] = {
      {"lecture", make(2, 6, 6, 2, 0, true, false), 1},
      {"lecture_no_mask_bias", make(2, 6, 6, 2, 0, false, true), 2},
      {"gpt2_width", make(1, 9, 768, 12, 0, true, false), 3},
      {"awkward", make(3, 13, 34, 2, 0, true, true), 4},
      {"explicit_head_dim", make(2, 7, 6, 40, 3, false, false), 5},
  };
  std::printf("[\n");
  for (std::size_t n = 0; n < sizeof(cases) / sizeof(cases[0]); ++n) {
    const Case& c = cases[n];
    std::unique_ptr<headwise::Model> model;
    const headwise::Status s = headwise::Model::create(c.config, {}, c.seed, &model);
    if (!s.is_ok()) {
      std::fprintf(stderr, "%s: %s\n", c.name, s.message().c_str());
      return 1;
    }
    float* x = model->tensor(headwise::TensorId::kInput);
    headwise::fill_uniform(x, model->tensor_size(headwise::TensorId::kInput), c.seed,
                           headwise::tensor_row(headwise::TensorId::kInput).stream, 1.0f);
    const headwise::Config& k = c.config;
    std::printf(
        "{\"name\":\"%s\",\"config\":{\"batch\":%lld,\"tokens\":%lld,\"dModel\":%lld,"
        "\"heads\":%lld,%s\"causal\":%s,\"bias\":%s,\"seed\":%u},\"outputs\":{",
        c.name, (long long)k.batch, (long long)k.tokens, (long long)k.d_model, (long long)k.heads,
        k.head_dim ? ("\"headDim\":" + std::to_string(k.head_dim) + ",").c_str() : "",
        k.causal ? "true" : "false", k.bias ? "true" : "false", c.seed);
    const headwise::Step steps[] = {headwise::Step::kForwardFused, headwise::Step::kForwardLoop};
    for (int v = 0; v < 2; ++v) {
      model->run(steps[v]);
      std::printf("%s\"%s\":[", v ? "," : "", v ? "loop" : "fused");
      const float* y = model->tensor(headwise::TensorId::kOutput);
      for (std::size_t i = 0; i < model->tensor_size(headwise::TensorId::kOutput); ++i)
        std::printf("%s%.9g", i ? "," : "", y[i]);
      std::printf("]");
    }
    std::printf("}}%s\n", n + 1 < sizeof(cases) / sizeof(cases[0]) ? "," : "");
  }
  std::printf("]\n");
  return 0;
}
