// Thin Embind layer over the trainer (wasm/core/train). Trainers live here behind integer
// handles; errors come back as 0/null plus trainerLastError(), never a throw. Raw names:
// web/trainer.js is the public API and checks every argument before calling in.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "train/trainer.hpp"

using emscripten::val;
using headwise::train::Trainer;

namespace {

std::unordered_map<int, std::unique_ptr<Trainer>> g_trainers;
int g_next_handle = 1;
std::string g_last_error;

template <typename T>
T fail(std::string message, T value) {
  g_last_error = std::move(message);
  return value;
}

Trainer* find(int handle) {
  auto it = g_trainers.find(handle);
  if (it == g_trainers.end()) return fail<Trainer*>("this trainer was disposed", nullptr);
  return it->second.get();
}

val evaluation(const headwise::train::Evaluation& e, long step) {
  val out = val::object();
  out.set("loss", e.loss);
  out.set("accuracy", e.accuracy);
  out.set("step", static_cast<double>(step));
  return out;
}

int trainer_create(int heads, int d_model, int mlp, int variant, double seed, double learning_rate,
                   int batch, double warmup, int eval_size) {
  headwise::train::TrainerOptions o;
  o.heads = static_cast<std::size_t>(heads);
  o.d_model = static_cast<std::size_t>(d_model);
  o.mlp = static_cast<std::size_t>(mlp);
  o.variant = variant == 1 ? headwise::train::Variant::kVerb : headwise::train::Variant::kVerbNoun;
  o.seed = static_cast<std::uint32_t>(seed);
  o.adam.learning_rate = static_cast<float>(learning_rate);
  o.adam.warmup = static_cast<long>(warmup);
  o.batch = static_cast<std::size_t>(batch);
  o.eval_size = static_cast<std::size_t>(eval_size);
  std::unique_ptr<Trainer> t;
  const headwise::Status s = Trainer::create(o, &t);
  if (!s.is_ok()) return fail(s.message(), 0);
  const int handle = g_next_handle++;
  g_trainers.emplace(handle, std::move(t));
  return handle;
}

bool trainer_dispose(int handle) { return g_trainers.erase(handle) > 0; }

// n updates; the mean of their batches' losses and accuracies (each taken before its update).
val trainer_step(int handle, int n) {
  Trainer* t = find(handle);
  if (!t) return val::null();
  double loss = 0, accuracy = 0;
  for (int i = 0; i < n; ++i) {
    const headwise::train::Evaluation e = t->step();
    loss += e.loss;
    accuracy += e.accuracy;
  }
  return evaluation({loss / n, accuracy / n}, t->steps());
}

val trainer_evaluate(int handle) {
  Trainer* t = find(handle);
  if (!t) return val::null();
  return evaluation(t->evaluate(), t->steps());
}

val trainer_head_shares(int handle) {
  Trainer* t = find(handle);
  if (!t) return val::null();
  const headwise::train::HeadShares s = t->head_shares();
  val out = val::array();
  for (std::size_t h = 0; h < s.verb.size(); ++h) {
    val head = val::object();
    head.set("verb", s.verb[h]);
    head.set("noun", s.noun[h]);
    out.call<void>("push", head);
  }
  return out;
}

// words: 12 token ids, checked by the caller. Returns heads x 12 floats.
val trainer_attention(int handle, val words) {
  Trainer* t = find(handle);
  if (!t) return val::null();
  const std::vector<int> ids = emscripten::convertJSArrayToNumberVector<int>(words);
  if (ids.size() != headwise::train::kTokens) return fail("expected 12 token ids", val::null());
  std::vector<float> out(t->options().heads * headwise::train::kTokens);
  t->attention_from(ids.data(), out.data());
  return val::global("Float32Array").new_(emscripten::typed_memory_view(out.size(), out.data()));
}

// The classifier's tensor table: [{ name, role, shape, symbols, slot }], parameters first in
// buffer order, then their gradients and Adam moments (slot 1, 2, 3: same layout, own buffer).
val trainer_table(int handle) {
  Trainer* t = find(handle);
  if (!t) return val::null();
  using namespace headwise::train;
  val rows = val::array();
  for (int i = 0; i < kSlotCount * kParamCount; ++i) {
    const headwise::TensorRow& row = classifier_table()[i];
    val shape = val::array(), symbols = val::array();
    for (int d = 0; d < row.shape.rank; ++d) {
      const headwise::Dim dim = row.shape.dims[d];
      shape.call<void>("push", static_cast<double>(t->model().dims()[static_cast<int>(dim)]));
      symbols.call<void>("push", std::string(headwise::dim_symbol(dim)));
    }
    val entry = val::object();
    entry.set("name", std::string(row.name));
    entry.set("role", std::string(headwise::role_name(row.role)));
    entry.set("shape", shape);
    entry.set("symbols", symbols);
    entry.set("slot", i / kParamCount);
    rows.call<void>("push", entry);
  }
  return rows;
}

// A view of one slot's whole buffer (0 values, 1 gradients, 2 and 3 Adam's moments), valid only
// until the next allocation: the caller copies at once.
val trainer_buffer_view(int handle, int slot) {
  Trainer* t = find(handle);
  if (!t || slot < 0 || slot >= headwise::train::kSlotCount) return val::null();
  return val(emscripten::typed_memory_view(
      t->model().parameter_count(), t->model().buffer(static_cast<headwise::train::Slot>(slot))));
}

std::string trainer_last_error() {
  std::string message;
  message.swap(g_last_error);
  return message;
}

int live_trainers() { return static_cast<int>(g_trainers.size()); }

}  // namespace

EMSCRIPTEN_BINDINGS(headwise_train) {
  emscripten::function("trainerCreate", &trainer_create);
  emscripten::function("trainerDispose", &trainer_dispose);
  emscripten::function("trainerStep", &trainer_step);
  emscripten::function("trainerEvaluate", &trainer_evaluate);
  emscripten::function("trainerHeadShares", &trainer_head_shares);
  emscripten::function("trainerAttention", &trainer_attention);
  emscripten::function("trainerTable", &trainer_table);
  emscripten::function("trainerBufferView", &trainer_buffer_view);
  emscripten::function("trainerLastError", &trainer_last_error);
  emscripten::function("liveTrainers", &live_trainers);
}
