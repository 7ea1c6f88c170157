// Not a test: trains the "order" task ("all X are Y", true or false) with every position kind,
// bidirectional, and with no positions under a causal mask, and prints held-out accuracy per
// seed as a Markdown table (docs/positions.md).
// Usage: position_accuracy layers steps seed [seed...]
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

#include "train/trainer.hpp"

using namespace headwise::train;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s layers steps seed [seed...]\n", argv[0]);
    return 2;
  }
  const double layers = std::strtod(argv[1], nullptr);
  const long steps = std::strtol(argv[2], nullptr, 10);
  std::vector<double> seeds;
  for (int a = 3; a < argc; ++a) seeds.push_back(std::strtod(argv[a], nullptr));
  struct Case {
    const char* positions;
    bool causal;
  };
  const Case cases[] = {{"none", false}, {"learned", false}, {"sinusoidal", false},
                        {"rope", false}, {"alibi", false},   {"none", true}};
  std::printf("| positions | mask |");
  for (double s : seeds) std::printf(" seed %g |", s);
  std::printf(" mean |\n|---|---|");
  for (std::size_t i = 0; i <= seeds.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const Case& c : cases) {
    std::printf("| %s | %s |", c.positions, c.causal ? "causal" : "bidirectional");
    double sum = 0;
    for (double seed : seeds) {
      TrainerOptions o;
      o.task = "order";
      o.layers = layers;
      o.positions = c.positions;
      o.causal = c.causal;
      o.seed = seed;
      std::unique_ptr<Trainer> t;
      const headwise::Status s = Trainer::create(o, std::numeric_limits<std::uint64_t>::max(), &t);
      if (!s.is_ok()) return std::fprintf(stderr, "%s\n", s.message().c_str()), 1;
      for (long i = 0; i < steps; ++i) t->step();
      const double accuracy = t->evaluate().accuracy;
      sum += accuracy;
      std::printf(" %.3f |", accuracy);
      std::fflush(stdout);
    }
    std::printf(" %.3f |\n", sum / double(seeds.size()));
  }
  return 0;
}
