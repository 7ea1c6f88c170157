// Not a test itself: trains natively for a few steps and prints JSON that
// tests/js/train-native-agreement.test.js compares with the wasm trainer: per-step batch losses,
// the held-out evaluation and every parameter after the last step.
#include <cstdio>
#include <memory>

#include "train/trainer.hpp"

using namespace headwise::train;

int main() {
  std::printf("[");
  const std::size_t heads_list[] = {1, 2, 4};
  for (std::size_t c = 0; c < 3; ++c) {
    TrainerOptions o;
    o.heads = heads_list[c];
    o.seed = static_cast<std::uint32_t>(40 + c);
    o.eval_size = 512;
    std::unique_ptr<Trainer> t;
    if (!Trainer::create(o, &t).is_ok()) return 1;
    std::printf("%s{\"options\":{\"heads\":%zu,\"seed\":%u,\"evalSize\":512},\"losses\":[",
                c ? "," : "", o.heads, o.seed);
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
