// Thin Embind layer over the trainer (wasm/core/train). Trainers live in the handle map
// (boundary.hpp); errors come back as 0/null plus lastError(), never a throw. The options cross
// whole, as one value_object whose fields are the option table's rows. Raw names: web/trainer.js is
// the public API and checks every argument against trainerOptionTable() before calling in.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "boundary.hpp"
#include "config.hpp"
#include "option_table.hpp"
#include "tasks/task.hpp"
#include "train/role_scores.hpp"
#include "train/trainer.hpp"

using emscripten::val;
using headwise::bindings::can_allocate;
using headwise::bindings::fail;
using headwise::bindings::handles;
using headwise::bindings::string_list;
using headwise::bindings::text;
using headwise::train::Trainer;
using headwise::train::TrainerOptions;

namespace {

Trainer* find(int handle) {
  Trainer* t = handles().find<Trainer>(handle);
  if (!t) fail("this trainer was disposed");
  return t;
}

val evaluation(const headwise::train::Evaluation& e, const Trainer& t) {
  val out = val::object();
  out.set(text("loss"), e.loss);
  out.set(text("accuracy"), e.accuracy);
  out.set(text("step"), static_cast<double>(t.steps()));
  val groups = val::object();
  for (std::size_t g = 0; g < e.groups.size(); ++g) {
    val group = val::object();
    group.set(text("loss"), e.groups[g].loss);
    group.set(text("accuracy"), e.groups[g].accuracy);
    group.set(text("rows"), static_cast<double>(e.groups[g].rows));
    if (e.groups[g].candidate_rows) {  // a probe scored over its candidates (task "story")
      group.set(text("candidateAccuracy"), e.groups[g].candidate_accuracy);
      group.set(text("candidateRows"), static_cast<double>(e.groups[g].candidate_rows));
    }
    groups.set(text(t.task().groups[g]), group);
  }
  out.set(text("groups"), groups);
  if (!e.parts.empty()) {
    val parts = val::object();
    for (std::size_t k = 0; k < e.parts.size(); ++k)
      parts.set(text(t.task().parts[k].name), e.parts[k]);
    out.set(text("parts"), parts);
  }
  out.set(text("divergedSteps"), static_cast<double>(t.diverged_steps()));
  return out;
}

// { options: the trainer's option table (option_table.hpp), maxMultiplyAddsPerCall,
// taskDefaults: { [task]: { evalSize } } (what an option left at 0 becomes for that task) }:
// what JavaScript checks options against and fills them in with.
val trainer_option_table() {
  if (!can_allocate()) return val::null();
  val table = val::object();
  table.set(text("options"),
            headwise::bindings::option_rows_value(headwise::train::option_rows(),
                                                  headwise::train::option_row_count()));
  val defaults = val::object();
  for (const headwise::tasks::Task* const* t = headwise::tasks::task_list(); *t; ++t) {
    headwise::train::TrainerOptions o;
    o.task = (*t)->name;
    const headwise::train::TrainerOptions filled = headwise::train::with_task_defaults(o, **t);
    val d = val::object();
    d.set(text("evalSize"), filled.eval_size);
    defaults.set(text((*t)->name), d);
  }
  table.set(text("taskDefaults"), defaults);
  table.set(text("maxMultiplyAddsPerCall"), headwise::train::kMaxMultiplyAddsPerCall);
  return table;
}

// The core's tasks, in registry order: [{ name, about, probes: [{ name, role }] }], and every role
// a head can take ({ tasks, roles }: the task-free roles, each task's probes' roles, "mixed").
val task_table() {
  if (!can_allocate()) return val::null();
  namespace train = headwise::train;
  val tasks = val::array();
  val roles = val::array();
  const auto add_role = [&](const char* role) {
    if (!roles.call<bool>("includes", text(role))) roles.call<void>("push", text(role));
  };
  for (const char* const* r = train::task_free_roles(); *r; ++r) add_role(*r);
  for (const headwise::tasks::Task* const* t = headwise::tasks::task_list(); *t; ++t) {
    val probes = val::array();
    for (const headwise::tasks::Probe* p = (*t)->probes; p->name; ++p) {
      val probe = val::object();
      probe.set(text("name"), text(p->name));
      probe.set(text("role"), text(train::probe_role(p->name)));
      probes.call<void>("push", probe);
      add_role(train::probe_role(p->name));
    }
    val task = val::object();
    task.set(text("name"), text((*t)->name));
    task.set(text("about"), text((*t)->about));
    task.set(text("probes"), probes);
    tasks.call<void>("push", task);
  }
  add_role(train::kMixedRole);
  val table = val::object();
  table.set(text("tasks"), tasks);
  table.set(text("roles"), roles);
  return table;
}

int trainer_create(TrainerOptions options) {
  if (!can_allocate()) return 0;
  std::unique_ptr<Trainer> t;
  const headwise::Status s = Trainer::create(options, emscripten_get_heap_max(), &t);
  if (!s.is_ok()) return fail(s.message()), 0;
  return handles().add(std::move(t));
}

bool trainer_dispose(int handle) { return handles().erase<Trainer>(handle); }

// n updates; the mean of their batches' losses and accuracies (each taken before its update).
val trainer_step(int handle, double n) {
  if (!can_allocate()) return val::null();
  Trainer* t = find(handle);
  if (!t) return val::null();
  const double work = n * t->step_multiply_adds();
  if (work > headwise::train::kMaxMultiplyAddsPerCall) {
    const double most =
        std::floor(headwise::train::kMaxMultiplyAddsPerCall / t->step_multiply_adds());
    return fail("step(" + headwise::format_number(n) + ") would take " +
                headwise::format_number(std::round(work)) +
                " multiply-adds, more than one call's limit of " +
                headwise::format_number(headwise::train::kMaxMultiplyAddsPerCall) +
                ": call step() repeatedly, at most " + headwise::format_number(most) +
                " steps a call for this trainer"),
           val::null();
  }
  headwise::train::Evaluation mean;
  const int count = static_cast<int>(n);
  for (int i = 0; i < count; ++i) {
    const headwise::train::Evaluation e = t->step();
    mean.loss += e.loss / count;
    mean.accuracy += e.accuracy / count;
    if (mean.groups.size() < e.groups.size()) mean.groups.resize(e.groups.size());
    for (std::size_t g = 0; g < e.groups.size(); ++g) {
      mean.groups[g].loss += e.groups[g].loss / count;
      mean.groups[g].accuracy += e.groups[g].accuracy / count;
      mean.groups[g].rows += e.groups[g].rows;
    }
  }
  return evaluation(mean, *t);
}

// The data-parallel pieces (trainer.hpp): draw the next batch and take the gradient of its rows
// [from, to) (left in the gradient slot, read with trainerBufferView(handle, 1)); returns the
// slice's sums { lossSum, counted, correct, groups: [{ lossSum, correct, rows }] in task order,
// batchState: the stream's state after the draw }.
val trainer_slice_gradients(int handle, double from, double to) {
  if (!can_allocate()) return val::null();
  Trainer* t = find(handle);
  if (!t) return val::null();
  const double batch = t->options().batch;
  if (!(from >= 0 && from < to && to <= batch) || from != std::floor(from) ||
      to != std::floor(to)) {
    return fail("the slice must be whole rows with 0 <= from < to <= " +
                headwise::format_number(batch)),
           val::null();
  }
  t->draw_batch();
  const headwise::layers::LossSums r =
      t->batch_gradient(static_cast<std::size_t>(from), static_cast<std::size_t>(to));
  val out = val::object();
  out.set(text("lossSum"), r.loss_sum);
  out.set(text("counted"), static_cast<double>(r.counted));
  out.set(text("correct"), static_cast<double>(r.correct));
  val groups = val::array();
  for (std::size_t g = 0; t->task().groups[g] && g < headwise::layers::kMaxGroups; ++g) {
    val group = val::object();
    group.set(text("lossSum"), r.group_loss[g]);
    group.set(text("correct"), static_cast<double>(r.group_correct[g]));
    group.set(text("rows"), static_cast<double>(r.group_counted[g]));
    groups.call<void>("push", group);
  }
  out.set(text("groups"), groups);
  out.set(text("batchState"), static_cast<double>(t->batch_state()));
  return out;
}

// One Adam step with the gradient slot as the caller wrote it; loss: the batch's. { step,
// diverged (nothing changed), divergedSteps }.
val trainer_apply_gradient(int handle, double loss) {
  if (!can_allocate()) return val::null();
  Trainer* t = find(handle);
  if (!t) return val::null();
  const bool applied = t->apply_gradient(loss);
  val out = val::object();
  out.set(text("step"), static_cast<double>(t->steps()));
  out.set(text("diverged"), !applied);
  out.set(text("divergedSteps"), static_cast<double>(t->diverged_steps()));
  return out;
}

// The batch stream's 32-bit state, and setting it (a whole number below 2^32, checked in JS).
double trainer_batch_state(int handle) {
  Trainer* t = find(handle);
  return t ? static_cast<double>(t->batch_state()) : -1.0;
}

bool trainer_set_batch_state(int handle, double state) {
  Trainer* t = find(handle);
  if (!t) return false;
  if (!(state >= 0 && state < 4294967296.0) || state != std::floor(state))
    return fail("the batch state must be a whole number from 0 to 2^32 - 1"), false;
  t->set_batch_state(static_cast<std::uint32_t>(state));
  return true;
}

// zero_heads: (layer, head) pairs, flat, whole numbers >= 0 (checked by the caller); the core
// checks them against the model. Those heads' contexts are zeroed before W_out (ablation).
val trainer_evaluate(int handle, val zero_heads) {
  if (!can_allocate()) return val::null();
  Trainer* t = find(handle);
  if (!t) return val::null();
  const std::vector<int> flat = emscripten::convertJSArrayToNumberVector<int>(zero_heads);
  if (flat.size() % 2) return fail("zeroHeads must be (layer, head) pairs"), val::null();
  std::vector<headwise::train::HeadIndex> heads;
  for (std::size_t i = 0; i < flat.size(); i += 2) {
    if (flat[i] < 0 || flat[i + 1] < 0) return fail("a head index is negative"), val::null();
    heads.push_back({std::size_t(flat[i]), std::size_t(flat[i + 1])});
  }
  headwise::train::Evaluation e;
  const headwise::Status s = t->evaluate_ablated(heads, &e);
  if (!s.is_ok()) return fail(s.message()), val::null();
  return evaluation(e, *t);
}

// Per head of the last block: { probe: mean attention from the read position } (held-out set).
val trainer_probe_shares(int handle) {
  if (!can_allocate()) return val::null();
  Trainer* t = find(handle);
  if (!t) return val::null();
  const headwise::train::ProbeShares s = t->probe_shares();
  val out = val::array();
  for (std::size_t h = 0; h < t->spec().heads; ++h) {
    val head = val::object();
    for (std::size_t p = 0; p < s.shares.size(); ++p)
      head.set(text(t->task().probes[p].name), s.shares[p][h]);
    out.call<void>("push", head);
  }
  return out;
}

// Per block, per head: { previousToken, firstToken, self, then each of the task's probes by
// name (induction, duplicate; verb, noun), role } over the held-out set; a probe that counted
// nothing is null (wasm/core/train/role_scores.hpp names the role).
val trainer_role_scores(int handle) {
  if (!can_allocate()) return val::null();
  Trainer* t = find(handle);
  if (!t) return val::null();
  const headwise::train::HeadRoleScores r = t->role_scores();
  const auto number = [](double v) { return std::isnan(v) ? val::null() : val(v); };
  val layers = val::array();
  for (const auto& heads : r.scores) {
    val list = val::array();
    for (const headwise::train::RoleScores& s : heads) {
      val head = val::object();
      head.set(text("previousToken"), number(s.previous_token));
      head.set(text("firstToken"), number(s.first_token));
      head.set(text("self"), number(s.self));
      for (std::size_t k = 0; k < s.task.size(); ++k)
        head.set(text(t->task().probes[k].name), number(s.task[k]));
      head.set(text("role"), text(headwise::train::role_name(s, t->task())));
      list.call<void>("push", head);
    }
    layers.call<void>("push", list);
  }
  return layers;
}

// ids: a typed Int32Array of spec.tokens ids < vocab, checked by the caller. Returns every
// block's attention, [Float32Array (H, Tq, T)] per block.
val trainer_attention(int handle, val ids) {
  if (!can_allocate()) return val::null();
  Trainer* t = find(handle);
  if (!t) return val::null();
  const std::size_t T = t->spec().tokens;
  if (ids["length"].as<double>() != double(T)) {
    return fail("expected " + std::to_string(T) + " token ids"), val::null();
  }
  std::vector<int> sequence = emscripten::convertJSArrayToNumberVector<int>(ids);
  for (int id : sequence) {
    if (id < 0 || std::size_t(id) >= t->spec().vocab)
      return fail("token id out of range"), val::null();
  }
  t->run_one(sequence.data());
  val layers = val::array();
  for (std::size_t l = 0; l < t->spec().layers; ++l) {
    const std::size_t n = t->spec().heads * t->spec().out_tokens(l) * T;
    layers.call<void>("push", val::global("Float32Array")
                                  .new_(emscripten::typed_memory_view(n, t->model().attention(l))));
  }
  return layers;
}

// { ids: Int32Array(T), groups: Int32Array(read rows) } of held-out sequence `index`.
val trainer_held_out(int handle, double index) {
  if (!can_allocate()) return val::null();
  Trainer* t = find(handle);
  if (!t) return val::null();
  if (!(index >= 0 && index < t->options().eval_size && index == std::floor(index))) {
    return fail("the held-out set has sequences 0 to " +
                std::to_string(static_cast<long>(t->options().eval_size) - 1)),
           val::null();
  }
  std::vector<int> ids(t->spec().tokens), groups(headwise::tasks::read_tokens(t->task()));
  t->held_out(std::size_t(index), ids.data(), groups.data());
  val out = val::object();
  out.set(text("ids"),
          val::global("Int32Array").new_(emscripten::typed_memory_view(ids.size(), ids.data())));
  out.set(
      text("groups"),
      val::global("Int32Array").new_(emscripten::typed_memory_view(groups.size(), groups.data())));
  return out;
}

val dims_of(const headwise::TensorRow& row, const headwise::DimValues& dims, val* symbols) {
  val shape = val::array();
  for (int d = 0; d < row.shape.rank; ++d) {
    const headwise::Dim dim = row.shape.dims[d];
    shape.call<void>("push", static_cast<double>(dims[static_cast<int>(dim)]));
    symbols->call<void>("push", text(headwise::dim_symbol(dim)));
  }
  return shape;
}

// The model's tensor table: { parameters: [{ name, role, shape, symbols, offset, size }] in
// buffer order (gradients and Adam's moments share the layout, slots 1-3), activations: [...] }.
val trainer_table(int handle) {
  if (!can_allocate()) return val::null();
  Trainer* t = find(handle);
  if (!t) return val::null();
  const headwise::layers::StackTable& table = t->model().table();
  val out = val::object();
  for (bool parameters : {true, false}) {
    val rows = val::array();
    for (const auto& e : parameters ? table.parameters : table.activations) {
      val symbols = val::array();
      val row = val::object();
      row.set(text("name"), text(e.name.c_str()));
      row.set(text("role"), text(headwise::role_name(e.row->role)));
      row.set(text("shape"), dims_of(*e.row, e.dims, &symbols));
      row.set(text("symbols"), symbols);
      row.set(text("offset"), static_cast<double>(e.offset));
      row.set(text("size"), static_cast<double>(e.size));
      rows.call<void>("push", row);
    }
    out.set(text(parameters ? "parameters" : "activations"), rows);
  }
  // The four buffers a parameter's layout is shared by: its value, gradient and Adam's moments.
  val slots = val::array();
  for (int i = 0; i < headwise::layers::kSlotCount; ++i) {
    const auto slot = static_cast<headwise::layers::Slot>(i);
    val entry = val::object();
    entry.set(text("suffix"), text(headwise::layers::slot_suffix(slot)));
    entry.set(text("role"), text(i == 0   ? ""
                                 : i == 1 ? headwise::role_name(headwise::Role::kGradient)
                                          : headwise::role_name(headwise::Role::kOptimizerState)));
    slots.call<void>("push", entry);
  }
  out.set(text("slots"), slots);
  return out;
}

// The model and its task as the core built them: spec, vocabulary, groups, probes, work.
val trainer_info(int handle) {
  if (!can_allocate()) return val::null();
  Trainer* t = find(handle);
  if (!t) return val::null();
  const headwise::layers::ModelSpec& s = t->spec();
  const headwise::tasks::Task& task = t->task();
  val spec = val::object();
  spec.set(text("vocabulary"), static_cast<double>(s.vocab));
  spec.set(text("tokens"), static_cast<double>(s.tokens));
  spec.set(text("readTokens"), static_cast<double>(s.read_tokens()));
  spec.set(text("classes"), static_cast<double>(s.classes));
  spec.set(text("headDim"), static_cast<double>(s.head_dim));
  val words = val::array();
  for (std::size_t i = 0; i < task.vocab; ++i) words.call<void>("push", text(task.words[i]));
  val probes = val::array();
  for (const headwise::tasks::Probe* p = task.probes; p->name; ++p)
    probes.call<void>("push", text(p->name));
  val out = val::object();
  out.set(text("spec"), spec);
  out.set(text("words"), words);
  out.set(text("groups"), string_list(task.groups));
  out.set(text("probes"), probes);
  out.set(text("readout"),
          text(task.readout == headwise::layers::Readout::kLast ? "last" : "every"));
  out.set(text("stepMultiplyAdds"), t->step_multiply_adds());
  return out;
}

// A view of one slot's whole buffer (0 values, 1 gradients, 2 and 3 Adam's moments), valid only
// until the next allocation: the caller copies at once.
val trainer_buffer_view(int handle, int slot) {
  Trainer* t = find(handle);
  if (!t) return val::null();
  if (slot < 0 || slot >= headwise::layers::kSlotCount) return fail("no such slot"), val::null();
  return val(emscripten::typed_memory_view(
      t->model().parameter_count(), t->model().buffer(static_cast<headwise::layers::Slot>(slot))));
}

int live_trainers() { return handles().count<Trainer>(); }

}  // namespace

EMSCRIPTEN_BINDINGS(headwise_train) {
  headwise::bindings::register_option_fields("TrainerOptions", headwise::train::option_rows(),
                                             headwise::train::option_row_count());
  emscripten::function("trainerOptionTable", &trainer_option_table);
  emscripten::function("taskTable", &task_table);
  emscripten::function("trainerCreate", &trainer_create);
  emscripten::function("trainerDispose", &trainer_dispose);
  emscripten::function("trainerStep", &trainer_step);
  emscripten::function("trainerEvaluate", &trainer_evaluate);
  emscripten::function("trainerSliceGradients", &trainer_slice_gradients);
  emscripten::function("trainerApplyGradient", &trainer_apply_gradient);
  emscripten::function("trainerBatchState", &trainer_batch_state);
  emscripten::function("trainerSetBatchState", &trainer_set_batch_state);
  emscripten::function("trainerProbeShares", &trainer_probe_shares);
  emscripten::function("trainerRoleScores", &trainer_role_scores);
  emscripten::function("trainerAttention", &trainer_attention);
  emscripten::function("trainerHeldOut", &trainer_held_out);
  emscripten::function("trainerTable", &trainer_table);
  emscripten::function("trainerInfo", &trainer_info);
  emscripten::function("trainerBufferView", &trainer_buffer_view);
  emscripten::function("liveTrainers", &live_trainers);
}
