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
  // Held-out evaluation of a task with candidate sets (task.candidates): the share of the
  // group's scored rows whose answer has the highest logit among its candidates.
  double candidate_accuracy = 0;
  std::size_t candidate_rows = 0;
};

// A head of a block, for ablation.
struct HeadIndex {
  std::size_t layer, head;
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

  // One update on the next batch; the batch's loss and accuracy (before the update). It is
  // draw_batch(), batch_gradient(0, batch) and apply_gradient(loss), the pieces a data-parallel
  // trainer splits: each instance draws the same batch (set_batch_state), takes the gradient of
  // its rows, the slices' gradients are summed in a fixed order into one instance's gradient
  // buffer, and that one applies Adam.
  Evaluation step();
  // The next batch of the stream into the batch arrays (every instance draws all of it: cheap).
  void draw_batch();
  // Forward and backward on rows [from, to) of the drawn batch (from < to <= batch, checked by
  // the caller), leaving in the gradient buffer d(the whole batch's mean loss)/d(parameters)
  // restricted to those rows: the loss is divided by the whole batch's counted rows, so the
  // slices' gradients sum to the batch's (up to float rounding of the sum's order; [0, batch)
  // is the batch's gradient bit for bit). Sums and counts are the slice's own.
  layers::LossSums batch_gradient(std::size_t from, std::size_t to);
  // One Adam step with the gradient buffer as it is (loss: the batch's, checked for finiteness).
  // A loss or gradient that is not finite changes nothing and counts as a diverged step: false.
  bool apply_gradient(double loss);
  // The batch stream's state (mulberry32's 32 bits): what draw_batch() draws next.
  std::uint32_t batch_state() const { return batches_->state(); }
  void set_batch_state(std::uint32_t state) { batches_->set_state(state); }
  Evaluation evaluate();
  // evaluate() with the listed heads' contexts zeroed before W_out (ablation); a head out of
  // range is an error and evaluates nothing.
  Status evaluate_ablated(const std::vector<HeadIndex>& zeroed, Evaluation* out);
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
  // The options it was made with, its task's defaults filled in (evalSize never 0).
  const TrainerOptions& options() const { return options_; }

 private:
  Trainer() = default;
  // means[layer][probe][head]: each probe's mean attention over its counted (sequence, query)
  // pairs of the held-out set (NaN for a probe that counted none).
  using ProbeMeans = std::vector<std::vector<std::vector<double>>>;
  Evaluation evaluate_chunks(const std::vector<tasks::Probe>& probes, ProbeMeans* means);
  // Held-out sequences [start, start + n) just run: per group, rows scored over their candidate
  // sets and rows right.
  void score_candidates(std::size_t start, std::size_t n, std::vector<std::size_t>* scored,
                        std::vector<std::size_t>* right) const;
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
