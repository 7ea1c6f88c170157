// A model built from layers, its task and Adam: what the JS trainer drives. Batches come from
// one mulberry32 generator seeded with `seed`; the held-out set is the first eval_size sequences
// of a generator seeded with seed XOR 0x5EED5EED. Everything is counted from the rows before
// anything is allocated, within the memory budget, and refused (never aborted) beyond it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "adam.hpp"
#include "checked_array.hpp"
#include "layers/stack.hpp"
#include "role_scores.hpp"
#include "status.hpp"
#include "tasks/task.hpp"
#include "trainer_options.hpp"

namespace headwise::train {

struct GroupEvaluation {
  double loss = 0, accuracy = 0;
  std::size_t rows = 0;
};

struct Evaluation {
  double loss = 0, accuracy = 0;
  // Per loss group of the task (task.groups), in order.
  std::vector<GroupEvaluation> groups;
  // Held-out evaluation only: per part of an answer (task.parts), the share of counted rows
  // whose predicted class has that part right.
  std::vector<double> parts;
  bool diverged = false;  // step: the loss or a gradient was not finite; the weights were kept
};

// Mean attention from the read position over the held-out set on each of the task's probes
// (shares[probe][head], last block); empty for a task that reads every position.
struct ProbeShares {
  std::vector<std::vector<double>> shares;
};

// Per block and head (scores[layer][head]), measured on the held-out set (role_scores.hpp).
struct HeadRoleScores {
  std::vector<std::vector<RoleScores>> scores;
};

class Trainer {
 public:
  // Bytes the options need (model, activations, data), or an error for bad options.
  static Status plan(const TrainerOptions& options, std::uint64_t* bytes);
  // address_space: the most the process can hold (the module's maximum memory in wasm); the
  // budget is min(options.memory_budget, address_space).
  static Status create(const TrainerOptions& options, std::uint64_t address_space,
                       std::unique_ptr<Trainer>* out);

  // Multiply-adds of one step, and of one evaluation of the held-out set.
  double step_multiply_adds() const;
  double evaluation_multiply_adds() const;

  // One update on the next batch; the batch's loss and accuracy (before the update).
  Evaluation step();
  Evaluation evaluate();
  ProbeShares probe_shares();
  HeadRoleScores role_scores();
  // Forward on one sequence of spec().tokens ids (each < vocab: checked by the caller).
  void run_one(const int* ids);

  // Sequence i (< options().eval_size) of the held-out set: its spec().tokens ids, and per read
  // row its loss group (an index into task().groups), -1 for a row the loss mask leaves out.
  void held_out(std::size_t i, int* ids, int* groups) const;

  long steps() const { return steps_; }
  long diverged_steps() const { return diverged_; }
  layers::Stack& model() { return *model_; }
  const layers::ModelSpec& spec() const { return model_->spec(); }
  const tasks::Task& task() const { return *task_; }
  const TrainerOptions& options() const { return options_; }

 private:
  Trainer() = default;
  // means[layer][probe][head]: each probe's mean attention over its counted (sequence, query)
  // pairs of the held-out set (NaN for a probe that counted none).
  using ProbeMeans = std::vector<std::vector<std::vector<double>>>;
  Evaluation evaluate_chunks(const std::vector<tasks::Probe>& probes, ProbeMeans* means);
  struct Data {
    CheckedArray<int> ids, targets;
    CheckedArray<std::uint8_t> mask, groups;
    bool allocate(std::size_t sequences, std::size_t tokens, std::size_t reads);
    tasks::Batch batch() { return {ids.data(), targets.data(), mask.data(), groups.data()}; }
  };

  TrainerOptions options_;
  const tasks::Task* task_ = nullptr;
  AdamConfig adam_;
  std::unique_ptr<layers::Stack> model_;
  std::unique_ptr<tasks::Mulberry32> batches_;
  long steps_ = 0, diverged_ = 0;
  Data batch_, held_;
};

}  // namespace headwise::train
