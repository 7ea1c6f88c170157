// Not a test: the induction experiment of issue 20. Trains attention-only models (vocabulary 64,
// width 64, 4 heads, T = 64, batch 32, learned positions, Adam 3e-3 after the trainer's default
// 100-step warm-up) on the "induction" task and prints, every `every` steps, the held-out losses
// per group, the best induction score in the last block and the best previous-token score in the
// first block (role_scores.hpp), each head's scores (p previous token, i induction, d duplicate,
// f first token, s self) and role, and the mean training time per step, wall (CPU).
// Usage: induction_experiment layers steps every seed [seed...]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <memory>

#include "train/trainer.hpp"

using namespace headwise::train;

namespace {

// The best score over the heads of one block: a task-free one, or probe k of the task.
double best_of(const std::vector<RoleScores>& heads, double RoleScores::*score) {
  double best = 0;
  for (const RoleScores& s : heads) best = std::max(best, s.*score);
  return best;
}
double best_probe(const std::vector<RoleScores>& heads, std::size_t k) {
  double best = 0;
  for (const RoleScores& s : heads) best = std::max(best, s.task[k]);
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s layers steps every seed [seed...]\n", argv[0]);
    return 2;
  }
  TrainerOptions o;
  o.task = "induction";
  o.layers = std::strtod(argv[1], nullptr);
  o.heads = 4, o.d_model = 64, o.mlp = 0, o.positions = "learned";
  o.learning_rate = 3e-3, o.batch = 32, o.eval_size = 512;
  // Other settings for a sweep: INDUCTION_LR=1e-2 INDUCTION_BATCH=16 induction_experiment ...
  if (const char* lr = std::getenv("INDUCTION_LR")) o.learning_rate = std::strtod(lr, nullptr);
  if (const char* b = std::getenv("INDUCTION_BATCH")) o.batch = std::strtod(b, nullptr);
  const long steps = std::strtol(argv[2], nullptr, 10), every = std::strtol(argv[3], nullptr, 10);
  std::printf(
      "layers seed step | loss: first-copy repeat other | induction(last) prev(first) | "
      "ms/step wall (CPU) | roles\n");
  for (int a = 4; a < argc; ++a) {
    o.seed = std::strtod(argv[a], nullptr);
    std::unique_ptr<Trainer> t;
    const headwise::Status s = Trainer::create(o, std::numeric_limits<std::uint64_t>::max(), &t);
    if (!s.is_ok()) return std::fprintf(stderr, "%s\n", s.message().c_str()), 1;
    double seconds = 0, cpu_seconds = 0;
    for (long i = 1; i <= steps; ++i) {
      const auto start = std::chrono::steady_clock::now();
      const std::clock_t start_cpu = std::clock();
      t->step();
      cpu_seconds += double(std::clock() - start_cpu) / CLOCKS_PER_SEC;
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (i % every) continue;
      const Evaluation e = t->evaluate();
      const HeadRoleScores r = t->role_scores();
      std::printf("%g %g %ld | %.3f %.3f %.3f | %.3f %.3f | %.1f (%.1f) |", o.layers, o.seed, i,
                  e.groups[0].loss, e.groups[1].loss, e.groups[2].loss,
                  best_probe(r.scores.back(), 0),
                  best_of(r.scores.front(), &RoleScores::previous_token), 1e3 * seconds / double(i),
                  1e3 * cpu_seconds / double(i));
      for (std::size_t l = 0; l < r.scores.size(); ++l) {
        std::printf(" L%zu:", l + 1);
        for (const RoleScores& h : r.scores[l])
          std::printf(" [p%.2f i%.2f d%.2f f%.2f s%.2f %s]", h.previous_token, h.task[0], h.task[1],
                      h.first_token, h.self, role_name(h, t->task()));
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  return 0;
}
