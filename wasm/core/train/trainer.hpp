// A classifier, its task and Adam: what the JS trainer drives. Batches come from one mulberry32
// generator seeded with `seed`; the held-out set is the first eval_size sequences of a generator
// seeded with seed XOR 0x5EED5EED.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "adam.hpp"
#include "classifier.hpp"
#include "status.hpp"
#include "task.hpp"

namespace headwise::train {

struct TrainerOptions {
  std::size_t heads = 2, d_model = 32, mlp = 64;
  Variant variant = Variant::kVerbNoun;
  std::uint32_t seed = 0;
  AdamConfig adam;
  std::size_t batch = 32, eval_size = 2048;
};

struct Evaluation {
  double loss = 0, accuracy = 0;
};

// Mean attention from "?" over the held-out set, per head, on the latest verb and latest noun.
struct HeadShares {
  std::vector<double> verb, noun;
};

class Trainer {
 public:
  static Status create(const TrainerOptions& options, std::unique_ptr<Trainer>* out);

  // One update on the next batch; the batch's loss and accuracy (before the update).
  Evaluation step();
  Evaluation evaluate();
  HeadShares head_shares();
  // Attention from "?" for one 12-token sequence: heads x 12, into out.
  void attention_from(const int* words, float* out);

  long steps() const { return steps_; }
  Classifier& model() { return *model_; }
  const TrainerOptions& options() const { return options_; }

 private:
  explicit Trainer(const TrainerOptions& options);
  void evaluate_chunks(Evaluation* e, HeadShares* shares);

  TrainerOptions options_;
  std::unique_ptr<Classifier> model_;
  Mulberry32 batches_;
  long steps_ = 0;
  std::vector<int> words_, targets_, held_words_, held_targets_;
};

}  // namespace headwise::train
