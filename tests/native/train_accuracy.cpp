// Not a test: trains the "latest verb and latest noun" classifier natively and prints, per run,
// held-out accuracy at the end, the first step (checked every 25) where it passed 95%, each
// head's mean attention from "?" on the latest verb / latest noun, and the time per step.
// Usage: train_accuracy heads width task(verb-noun|verb) steps seed [seed...]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

#include "train/trainer.hpp"

using namespace headwise::train;

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s heads width verb-noun|verb steps seed [seed...]\n", argv[0]);
    return 2;
  }
  TrainerOptions o;
  o.heads = std::strtod(argv[1], nullptr);
  o.d_model = std::strtod(argv[2], nullptr);
  o.task = argv[3];
  const long steps = std::strtol(argv[4], nullptr, 10);
  for (int a = 5; a < argc; ++a) {
    o.seed = std::strtod(argv[a], nullptr);
    std::unique_ptr<Trainer> t;
    const headwise::Status s = Trainer::create(o, std::numeric_limits<std::uint64_t>::max(), &t);
    if (!s.is_ok()) return std::fprintf(stderr, "%s\n", s.message().c_str()), 1;
    long to95 = -1;
    double train_seconds = 0;
    for (long i = 1; i <= steps; ++i) {
      const auto start = std::chrono::steady_clock::now();
      t->step();
      train_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (to95 < 0 && i % 25 == 0 && t->evaluate().accuracy >= 0.95) to95 = i;
    }
    const Evaluation e = t->evaluate();
    const ProbeShares sh = t->probe_shares();
    std::printf(
        "heads %g width %g %s seed %g: accuracy %.4f loss %.4f to95 %ld step %.3f ms shares",
        o.heads, o.d_model, argv[3], o.seed, e.accuracy, e.loss, to95,
        1e3 * train_seconds / static_cast<double>(steps));
    for (std::size_t h = 0; h < t->spec().heads; ++h)
      std::printf(" [v %.2f n %.2f]", sh.shares[0][h], sh.shares[1][h]);
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
