// Not a test: issue 33's story experiment. Trains attention-only models on task "story" natively
// and prints, per seed: held-out accuracy per probe over its candidate set at every `every`
// steps, each head's role scores and role, the last block's attention on the lecture's sentence
// from "but" and from "catch" (on "dog" and "ball"), and the ablation table (each head zeroed
// alone: accuracy per probe). Seeds run one after another in this process.
// Usage: story_accuracy layers heads width steps every seed [seed...]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

#include "tasks/story.hpp"
#include "train/role_scores.hpp"
#include "train/trainer.hpp"

using namespace headwise::train;
namespace story = headwise::tasks::story;

namespace {

constexpr int kProbes = story::kProbeKinds;

void print_probes(const Evaluation& e) {
  for (int k = 0; k < kProbes; ++k)
    std::printf(" %.3f", e.groups[std::size_t(k)].candidate_accuracy);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: %s layers heads width steps every seed [seed...]\n", argv[0]);
    return 2;
  }
  TrainerOptions o;
  o.task = "story";
  o.layers = std::strtod(argv[1], nullptr);
  o.heads = std::strtod(argv[2], nullptr);
  o.d_model = std::strtod(argv[3], nullptr);
  o.mlp = 0;
  o.eval_size = 400;  // one evaluation call stays under its multiply-add limit
  const long steps = std::strtol(argv[4], nullptr, 10), every = std::strtol(argv[5], nullptr, 10);
  // The lecture's sentence, padded with "." to the task's 64 tokens (causal: the rows of the
  // sentence do not see the padding).
  const char* lecture[] = {"the", "dog",   "chased", "the",   "ball", ",", "but",
                           "it",  "could", "not",    "catch", "it",   "."};
  std::vector<int> ids(story::kTokens, story::word_id("."));
  for (int i = 0; i < 13; ++i) ids[std::size_t(i)] = story::word_id(lecture[i]);
  const int but = 6, catch_at = 10, dog = 1, ball = 4;
  std::printf("# probes: subject object possessive agreement name (accuracy over candidates)\n");
  for (int a = 6; a < argc; ++a) {
    o.seed = std::strtod(argv[a], nullptr);
    std::unique_ptr<Trainer> t;
    const headwise::Status s = Trainer::create(o, std::numeric_limits<std::uint64_t>::max(), &t);
    if (!s.is_ok()) return std::fprintf(stderr, "%s\n", s.message().c_str()), 1;
    double seconds = 0;
    std::printf("layers %g heads %g width %g seed %g params %zu\n", o.layers, o.heads, o.d_model,
                o.seed, t->model().parameter_count());
    for (long i = 1; i <= steps; ++i) {
      const auto start = std::chrono::steady_clock::now();
      t->step();
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (i % every == 0 || i == steps) {
        const Evaluation e = t->evaluate();
        std::printf("  step %ld loss %.3f probes", i, e.loss);
        print_probes(e);
        std::printf("\n");
      }
    }
    std::printf("  ms/step %.2f\n", 1e3 * seconds / double(steps));
    const HeadRoleScores roles = t->role_scores();
    for (std::size_t l = 0; l < roles.scores.size(); ++l) {
      for (std::size_t h = 0; h < roles.scores[l].size(); ++h) {
        const RoleScores& r = roles.scores[l][h];
        std::printf("  L%zu H%zu prev %.2f", l + 1, h + 1, r.previous_token);
        for (std::size_t k = 0; k < r.task.size(); ++k)
          std::printf(" %s %.2f", t->task().probes[k].name, r.task[k]);
        std::printf(" -> %s\n", role_name(r, t->task()));
      }
    }
    t->run_one(ids.data());
    const std::size_t L = t->spec().layers, H = t->spec().heads, T = story::kTokens;
    for (std::size_t l = 0; l < L; ++l) {
      const float* p = t->model().attention(l);
      std::printf("  lecture L%zu:", l + 1);
      for (std::size_t h = 0; h < H; ++h) {
        const float* rb = p + (h * T + but) * T;
        const float* rc = p + (h * T + catch_at) * T;
        // And where each row peaks (a word of the sentence and its weight).
        const int top_b = int(std::max_element(rb, rb + but + 1) - rb);
        const int top_c = int(std::max_element(rc, rc + catch_at + 1) - rc);
        std::printf(
            " H%zu but->dog %.2f ball %.2f (top %s %.2f) catch->ball %.2f dog %.2f (top %s %.2f) |",
            h + 1, rb[dog], rb[ball], lecture[top_b], rb[top_b], rc[ball], rc[dog], lecture[top_c],
            rc[top_c]);
      }
      std::printf("\n");
    }
    const Evaluation base = t->evaluate();
    std::printf("  ablation none:");
    print_probes(base);
    std::printf("\n");
    for (std::size_t l = 0; l < L; ++l) {
      for (std::size_t h = 0; h < H; ++h) {
        Evaluation e;
        t->evaluate_ablated({{l, h}}, &e);
        std::printf("  ablation L%zu H%zu:", l + 1, h + 1);
        print_probes(e);
        std::printf("\n");
      }
    }
    std::fflush(stdout);
  }
  return 0;
}
