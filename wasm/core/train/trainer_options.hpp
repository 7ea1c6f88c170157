// What a trainer is made from: a task, the model's architecture, Adam and the budgets, as one
// struct that crosses from JavaScript whole (an Embind value_object). The option table below is
// the only place options are named, typed, bounded and defaulted: the core checks options with
// it, and JavaScript reads it (trainerOptionTable) to check them before calling in.
#pragma once

#include <cstddef>
#include <string>

#include "layers/model_spec.hpp"
#include "option_row.hpp"
#include "status.hpp"
#include "tasks/task.hpp"

namespace headwise::train {

struct TrainerOptions {
  std::string task = "verb-noun";
  double layers = 1, heads = 2, d_model = 32;
  double head_dim = 0;  // 0: dModel / heads, which must then divide
  double kv_heads = 0;  // 0: heads (multi-head attention); must divide heads
  double mlp = 64;      // 0: attention-only blocks
  std::string activation = "relu";
  std::string positions = "learned";
  bool causal = true, layer_norm = false, bias = true;
  double seed = 0, learning_rate = 3e-3, batch = 32, warmup = 100;
  double eval_size = 0;                    // 0: the task's own (Task::eval_size)
  double memory_budget = 256.0 * 1048576;  // bytes for the model, its activations and data
};

using OptionRow = headwise::OptionRow<TrainerOptions>;
using headwise::OptionType;

// The rows, and how many.
const OptionRow* option_rows();
std::size_t option_row_count();

// Every row's check, then the rules between options (layers::check_heads: width divisible by
// heads).
Status check_options(const TrainerOptions& o);

// o with what it leaves to its task filled in (evalSize 0: the task's eval_size); o.task known.
TrainerOptions with_task_defaults(const TrainerOptions& o, const tasks::Task& task);

// The model a task and checked options describe.
layers::ModelSpec model_spec(const TrainerOptions& o, const tasks::Task& task);

// One synchronous call's work limit, in multiply-adds: a step(n) or an evaluation beyond it is
// refused with this number named (call repeatedly instead).
constexpr double kMaxMultiplyAddsPerCall = 2e9;
// A training step's work in forwards: the forward, then a backward of about twice its work.
constexpr double kStepPassesPerForward = 3.0;

}  // namespace headwise::train
