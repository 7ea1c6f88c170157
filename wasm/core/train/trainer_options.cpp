#include "trainer_options.hpp"

#include <cmath>

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

constexpr OptionRow integer(const char* name, double lo, double hi, double TrainerOptions::*field,
                            const char* about) {
  return OptionRow{name, OptionType::kInteger, lo, hi, field, nullptr, nullptr, nullptr, about};
}
constexpr OptionRow sized(const SpecLimit& l, double TrainerOptions::*field, const char* about) {
  return integer(l.name, double(l.lo), double(l.hi), field, about);
}
constexpr OptionRow choice(const char* name, std::string TrainerOptions::*field,
                           const char* const* (*choices)(), const char* about) {
  return OptionRow{name, OptionType::kChoice, 0, 0, nullptr, nullptr, field, choices, about};
}
constexpr OptionRow flag(const char* name, bool TrainerOptions::*field, const char* about) {
  return OptionRow{name, OptionType::kBoolean, 0, 0, nullptr, field, nullptr, nullptr, about};
}

const OptionRow kRows[] = {
    choice("task", &TrainerOptions::task, task_choices, "what the model learns"),
    sized(layers::kLayersLimit, &TrainerOptions::layers, "blocks in the stack"),
    sized(layers::kHeadsLimit, &TrainerOptions::heads, "attention heads per block"),
    sized(layers::kDModelLimit, &TrainerOptions::d_model, "width of the residual stream"),
    integer("headDim", 0, double(layers::kHeadDimLimit.hi), &TrainerOptions::head_dim,
            "width of one head (0: dModel / heads)"),
    sized(layers::kMlpLimit, &TrainerOptions::mlp, "hidden width of each block's MLP (0: none)"),
    choice("activation", &TrainerOptions::activation, activation_choices, "the MLP's nonlinearity"),
    choice("positions", &TrainerOptions::positions, layers::position_kind_names,
           "how word order enters the model"),
    flag("causal", &TrainerOptions::causal,
         "each position attends only to itself and earlier ones"),
    flag("layerNorm", &TrainerOptions::layer_norm, "pre-LayerNorm blocks and a final LayerNorm"),
    flag("bias", &TrainerOptions::bias, "biases in every linear map"),
    integer("seed", 0, 4294967295.0, &TrainerOptions::seed, "weights, batches and held-out set"),
    OptionRow{"learningRate", OptionType::kNumber, 0, 10, &TrainerOptions::learning_rate, nullptr,
              nullptr, nullptr, "Adam's step size after warm-up"},
    integer("batch", 1, 4096, &TrainerOptions::batch, "sequences per step"),
    integer("warmup", 0, 1e9, &TrainerOptions::warmup, "steps of linear learning-rate warm-up"),
    integer("evalSize", 1, 65536, &TrainerOptions::eval_size, "sequences in the held-out set"),
    integer("memoryBudget", 1, 4294967296.0, &TrainerOptions::memory_budget,
            "bytes the trainer may use"),
};

Status check_row(const OptionRow& r, const TrainerOptions& o) {
  const std::string name(r.name);
  switch (r.type) {
    case OptionType::kBoolean:
      return Status::ok();
    case OptionType::kChoice: {
      const std::string& v = o.*r.text;
      std::string known;
      for (const char* const* c = r.choices(); *c; ++c) {
        if (v == *c) return Status::ok();
        known += std::string(known.empty() ? "" : ", ") + "\"" + *c + "\"";
      }
      return Status::error(name + " must be one of " + known + ", got \"" + v + "\"");
    }
    case OptionType::kNumber: {
      const double v = o.*r.number;
      if (std::isfinite(v) && v > r.min && v <= r.max) return Status::ok();
      return Status::error(name + " must be a number in (" + format_number(r.min) + ", " +
                           format_number(r.max) + "], got " + format_number(v));
    }
    case OptionType::kInteger:
      break;
  }
  const double v = o.*r.number;
  if (std::isfinite(v) && v == std::floor(v) && v >= r.min && v <= r.max) return Status::ok();
  return Status::error(name + " must be a whole number between " + format_number(r.min) + " and " +
                       format_number(r.max) + ", got " + format_number(v));
}

}  // namespace

const OptionRow* option_rows() { return kRows; }
std::size_t option_row_count() { return sizeof(kRows) / sizeof(kRows[0]); }

Status check_options(const TrainerOptions& o) {
  for (const OptionRow& r : kRows) {
    Status s = check_row(r, o);
    if (!s.is_ok()) return s;
  }
  if (o.head_dim == 0 && std::fmod(o.d_model, o.heads) != 0) {
    return Status::error("dModel (" + format_number(o.d_model) + ") must be a multiple of heads (" +
                         format_number(o.heads) + "), or give headDim");
  }
  return Status::ok();
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
  s.mlp = std::size_t(o.mlp);
  s.activation = o.activation == "gelu" ? layers::Activation::kGelu : layers::Activation::kRelu;
  s.position = layers::find_position_kind(o.positions.c_str());
  s.causal = o.causal;
  s.layer_norm = o.layer_norm;
  s.bias = o.bias;
  return s;
}

}  // namespace headwise::train
