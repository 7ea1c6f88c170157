// Not a test itself: trains natively for a few steps and prints JSON that
// tests/js/train-native-agreement.test.js compares with the wasm trainer: per-step batch losses,
// the held-out evaluation and every parameter after the last step. Three cases at the default
// sizes (1, 2, 4 heads) and two at tail sizes: widths, head_dim, MLP width and batch that are not
// multiples of the SIMD width (head_dim 3 and 5, batch 5 and 1, the "verb" variant once).
#include <cstdio>
#include <limits>
#include <memory>

#include "train/trainer.hpp"

using namespace headwise::train;
using headwise::layers::Slot;

int main() {
  struct Case {
    double heads, d_model, mlp, batch;
    const char* task;
  };
  const Case cases[] = {{1, 32, 64, 32, "verb-noun"},
                        {2, 32, 64, 32, "verb-noun"},
                        {4, 32, 64, 32, "verb-noun"},
                        {3, 9, 7, 5, "verb-noun"},
                        {1, 5, 3, 1, "verb"}};
  std::printf("[");
  for (std::size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    TrainerOptions o;
    o.heads = cases[c].heads;
    o.d_model = cases[c].d_model;
    o.mlp = cases[c].mlp;
    o.batch = cases[c].batch;
    o.task = cases[c].task;
    o.seed = static_cast<double>(40 + c);
    o.eval_size = 512;
    std::unique_ptr<Trainer> t;
    if (!Trainer::create(o, std::numeric_limits<std::uint64_t>::max(), &t).is_ok()) return 1;
    std::printf(
        "%s{\"options\":{\"heads\":%g,\"dModel\":%g,\"mlpWidth\":%g,\"batch\":%g,"
        "\"task\":\"%s\",\"seed\":%g,\"evalSize\":512},\"losses\":[",
        c ? "," : "", o.heads, o.d_model, o.mlp, o.batch, o.task.c_str(), o.seed);
    for (int i = 0; i < 20; ++i) std::printf("%s%.9g", i ? "," : "", t->step().loss);
    const Evaluation e = t->evaluate();
    std::printf("],\"evaluation\":{\"loss\":%.9g,\"accuracy\":%.9g},\"parameters\":[", e.loss,
                e.accuracy);
    const float* p = t->model().buffer(Slot::kValue);
    for (std::size_t i = 0; i < t->model().parameter_count(); ++i)
      std::printf("%s%.9g", i ? "," : "", p[i]);
    std::printf("]}");
  }
  std::printf("]\n");
  return 0;
}
