#include "trainer_options.hpp"

#include "config.hpp"

namespace headwise::train {

namespace {

using layers::SpecLimit;

const char* const kActivations[] = {"relu", "gelu", nullptr};
const char* const* activation_choices() { return kActivations; }

const char* const* task_choices() {
  static const char* names[32] = {};
  if (!names[0]) {
    int i = 0;
    for (const tasks::Task* const* t = tasks::task_list(); *t && i < 31; ++t)
      names[i++] = (*t)->name;
  }
  return names;
}

using O = TrainerOptions;

constexpr OptionRow sized(const SpecLimit& l, double O::*field, const char* about) {
  return integer_row(l.name, double(l.lo), double(l.hi), field, about);
}

const OptionRow kRows[] = {
    choice_row("task", &O::task, task_choices, "what the model learns"),
    sized(layers::kLayersLimit, &O::layers, "blocks in the stack"),
    sized(layers::kHeadsLimit, &O::heads, "attention heads per block"),
    sized(layers::kDModelLimit, &O::d_model, "width of the residual stream"),
    integer_row("headDim", 0, double(layers::kHeadDimLimit.hi), &O::head_dim,
                "width of one head (0: dModel / heads)"),
    integer_row("kvHeads", 0, double(layers::kHeadsLimit.hi), &O::kv_heads,
                "K/V heads per block, each shared by heads / kvHeads query heads (0: heads)"),
    sized(layers::kMlpLimit, &O::mlp, "hidden width of each block's MLP (0: none)"),
    choice_row("activation", &O::activation, activation_choices, "the MLP's nonlinearity"),
    choice_row("positions", &O::positions, layers::position_kind_names,
               "how word order enters the model"),
    flag_row("causal", &O::causal, "each position attends only to itself and earlier ones"),
    flag_row("layerNorm", &O::layer_norm, "pre-LayerNorm blocks and a final LayerNorm"),
    flag_row("bias", &O::bias, "biases in every linear map"),
    integer_row("seed", 0, 4294967295.0, &O::seed, "weights, batches and held-out set"),
    number_row("learningRate", 0, 10, &O::learning_rate, "Adam's step size after warm-up"),
    integer_row("batch", 1, 4096, &O::batch, "sequences per step"),
    integer_row("warmup", 0, 1e9, &O::warmup, "steps of linear learning-rate warm-up"),
    integer_row("evalSize", 0, 65536, &O::eval_size,
                "sequences in the held-out set (0: the task's own number)"),
    integer_row("memoryBudget", 1, 4294967296.0, &O::memory_budget, "bytes the trainer may use",
                "byte"),
};

}  // namespace

const OptionRow* option_rows() { return kRows; }
std::size_t option_row_count() { return sizeof(kRows) / sizeof(kRows[0]); }

Status check_options(const TrainerOptions& o) {
  for (const OptionRow& r : kRows) {
    Status s = check_row(r, o);
    if (!s.is_ok()) return s;
  }
  // The rows made them whole numbers in range: the layer's rule (width divisible by heads).
  return layers::check_heads(std::size_t(o.d_model), std::size_t(o.heads), std::size_t(o.head_dim));
}

TrainerOptions with_task_defaults(const TrainerOptions& o, const tasks::Task& task) {
  TrainerOptions out = o;
  if (out.eval_size == 0) out.eval_size = task.eval_size;
  return out;
}

layers::ModelSpec model_spec(const TrainerOptions& o, const tasks::Task& task) {
  layers::ModelSpec s;
  s.vocab = task.vocab;
  s.tokens = task.tokens;
  s.classes = task.classes;
  s.readout = task.readout;
  s.layers = std::size_t(o.layers);
  s.heads = std::size_t(o.heads);
  s.d_model = std::size_t(o.d_model);
  s.head_dim = o.head_dim > 0 ? std::size_t(o.head_dim) : s.d_model / s.heads;
  s.kv_heads = std::size_t(o.kv_heads);
  s.mlp = std::size_t(o.mlp);
  s.activation = o.activation == "gelu" ? layers::Activation::kGelu : layers::Activation::kRelu;
  s.position = layers::find_position_kind(o.positions.c_str());
  s.causal = o.causal;
  s.layer_norm = o.layer_norm;
  s.bias = o.bias;
  return s;
}

}  // namespace headwise::train
