// Not a test: the native training step time (forward + backward + Adam on a fresh batch) at
// 1, 2 and 4 heads, width 32, batch 32: median over rounds of 200 steps each, after 300 warm-up
// steps. Also times what rebuilding the attention rows from a saved log-sum-exp would add to
// each backward (the alternative to saving P; see attention_backward.hpp).
// Usage: train_step_bench [rounds]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

#include "attention_head.hpp"
#include "gemm_f32.hpp"
#include "layers/attention.hpp"
#include "train/trainer.hpp"

using namespace headwise::train;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
  for (std::size_t heads : {1, 2, 4}) {
    TrainerOptions o;
    o.heads = double(heads);
    o.seed = 1;
    o.eval_size = 1;
    std::unique_ptr<Trainer> t;
    if (!Trainer::create(o, std::numeric_limits<std::uint64_t>::max(), &t).is_ok()) return 1;
    for (int i = 0; i < 300; ++i) t->step();
    std::vector<double> ms;
    for (int r = 0; r < rounds; ++r) {
      const auto start = Clock::now();
      for (int i = 0; i < 200; ++i) t->step();
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count() / 200);
    }
    std::sort(ms.begin(), ms.end());
    // Rebuilding P for the 32 x heads rows at "?" (scores + softmax), as a log-sum-exp backward
    // would: here via the forward's own product and softmax on the model's saved q and k.
    const std::size_t hd = 32 / heads;
    std::vector<float> q(32 * 32, 0.1f), k(32 * 12 * 32, 0.2f), p(12);
    const auto start = Clock::now();
    const int reps = 2000;
    for (int r = 0; r < reps; ++r) {
      for (std::size_t b = 0; b < 32; ++b) {
        for (std::size_t h = 0; h < heads; ++h) {
          headwise::gemm_f32(headwise::Trans::kNo, headwise::Trans::kYes, 1, 12, hd, 0.25f,
                             q.data() + b * 32 + h * hd, 32, k.data() + b * 12 * 32 + h * hd, 32,
                             0.0f, p.data(), 12);
          headwise::softmax_row_f32(p.data(), 12);
        }
      }
    }
    const double rebuild_us =
        std::chrono::duration<double, std::micro>(Clock::now() - start).count() / reps;
    std::printf(
        "heads %zu: step median %.3f ms (min %.3f, max %.3f, %d rounds of 200); rebuilding P "
        "would add %.2f us per step; saving it costs %zu floats\n",
        heads, ms[ms.size() / 2], ms.front(), ms.back(), rounds, rebuild_us, 32 * heads * 12);
  }
  return 0;
}
