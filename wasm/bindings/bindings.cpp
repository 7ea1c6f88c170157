// Thin Embind layer over the core. Models live here behind integer handles so JavaScript never
// holds a C++ object or a pointer; errors come back as a flag plus lastError(), never a throw.
// Raw names: web/headwise.js is the public API.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <malloc.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <xsimd/xsimd.hpp>

#include "model.hpp"
#include "rng.hpp"
#include "shape_trace.hpp"

using emscripten::val;
using headwise::Config;
using headwise::Model;

namespace {

std::unordered_map<int, std::unique_ptr<Model>> g_models;
int g_next_handle = 1;
std::string g_last_error;

// JS numbers arrive as doubles; anything that is not a representable integer maps to a value
// the core refuses with a message, never to a silently wrapped size.
std::int64_t to_int64(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2e18) return std::numeric_limits<std::int64_t>::max();
  if (v <= -9.2e18) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(v);
}

Config make_config(double batch, double tokens, double d_model, double heads, double head_dim,
                   bool causal, bool bias) {
  Config c;
  c.batch = to_int64(batch);
  c.tokens = to_int64(tokens);
  c.d_model = to_int64(d_model);
  c.heads = to_int64(heads);
  c.head_dim = to_int64(head_dim);
  c.causal = causal;
  c.bias = bias;
  return c;
}

headwise::Limits make_limits(double budget_bytes) {
  headwise::Limits limits;
  if (budget_bytes > 0) limits.memory_budget_bytes = static_cast<std::uint64_t>(budget_bytes);
  return limits;
}

bool fail(std::string message) {
  g_last_error = std::move(message);
  return false;
}

Model* find(int handle) {
  auto it = g_models.find(handle);
  if (it == g_models.end()) {
    fail("this attention layer was disposed");
    return nullptr;
  }
  return it->second.get();
}

std::string validate_config(double batch, double tokens, double d_model, double heads,
                            double head_dim, double budget) {
  const Config c = make_config(batch, tokens, d_model, heads, head_dim, true, false);
  return headwise::validate(c, make_limits(budget)).message();
}

int create_model(double batch, double tokens, double d_model, double heads, double head_dim,
                 bool causal, bool bias, double seed, double budget) {
  std::unique_ptr<Model> model;
  const headwise::Status s =
      Model::create(make_config(batch, tokens, d_model, heads, head_dim, causal, bias),
                    make_limits(budget), static_cast<std::uint64_t>(seed), &model);
  if (!s.is_ok()) return fail(s.message()), 0;
  const int handle = g_next_handle++;
  g_models.emplace(handle, std::move(model));
  return handle;
}

bool dispose_model(int handle) { return g_models.erase(handle) > 0; }

// A view into wasm memory, valid only until the next allocation: the caller copies at once.
val tensor_view(int handle, int id) {
  Model* m = find(handle);
  if (!m || id < 0 || id >= headwise::kTensorCount) return val::null();
  const auto tid = static_cast<headwise::TensorId>(id);
  return val(emscripten::typed_memory_view(m->tensor_size(tid), m->tensor(tid)));
}

bool run_step(int handle, int step) {
  Model* m = find(handle);
  if (!m) return false;
  if (step < 0 || step >= headwise::kStepCount) return fail("unknown step " + std::to_string(step));
  const headwise::Status s = m->run(static_cast<headwise::Step>(step));
  return s.is_ok() || fail(s.message());
}

bool keep_intermediates(int handle, bool keep) {
  Model* m = find(handle);
  if (!m) return false;
  const headwise::Status s = m->keep_intermediates(keep);
  return s.is_ok() || fail(s.message());
}

val shape_trace(double batch, double tokens, double d_model, double heads, double head_dim) {
  const Config c = make_config(batch, tokens, d_model, heads, head_dim, true, false);
  const headwise::Status s = headwise::validate_shape(c, headwise::Limits{});
  if (!s.is_ok()) return fail(s.message()), val::null();
  val entries = val::array();
  for (const auto& e : headwise::shape_trace(c)) {
    val shape = val::array();
    for (std::int64_t n : e.shape) shape.call<void>("push", static_cast<double>(n));
    val entry = val::object();
    entry.set("step", e.step);
    entry.set("name", e.name);
    entry.set("shape", shape);
    entries.call<void>("push", entry);
  }
  return entries;
}

// The tensor table and the steps, so JavaScript takes its ids from the core instead of a copy:
// { tensors: [{ id, name, role, allocated, shape: ["D", "C"], stream, fanIn }], steps: [{ id, name }] }.
val tensor_table() {
  val tensors = val::array();
  for (int i = 0; i < headwise::kTensorCount; ++i) {
    const headwise::TensorRow& row = headwise::tensor_table()[i];
    val shape = val::array();
    for (int d = 0; d < row.shape.rank; ++d) shape.call<void>("push", val(headwise::dim_symbol(row.shape.dims[d])));
    val entry = val::object();
    entry.set("id", row.id);
    entry.set("name", row.name);
    entry.set("role", headwise::role_name(row.role));
    entry.set("allocated", headwise::alloc_name(row.alloc));
    entry.set("shape", shape);
    entry.set("stream", static_cast<double>(row.stream));
    entry.set("fanIn", row.fan_in == headwise::Dim::kNone ? val::null() : val(headwise::dim_symbol(row.fan_in)));
    tensors.call<void>("push", entry);
  }
  val steps = val::array();
  for (int i = 0; i < headwise::kStepCount; ++i) {
    val entry = val::object();
    entry.set("id", i);
    entry.set("name", headwise::step_name(static_cast<headwise::Step>(i)));
    steps.call<void>("push", entry);
  }
  val table = val::object();
  table.set("tensors", tensors);
  table.set("steps", steps);
  return table;
}

val random_uniform(double count, double seed, int stream, float bound) {
  headwise::FloatBuffer buffer;
  if (!buffer.allocate(static_cast<std::size_t>(count))) {
    return fail("out of memory generating " + std::to_string(count) + " values"), val::null();
  }
  headwise::fill_uniform(buffer.data(), buffer.size(), static_cast<std::uint64_t>(seed),
                         static_cast<std::uint32_t>(stream), bound);
  return val::global("Float32Array").new_(emscripten::typed_memory_view(buffer.size(), buffer.data()));
}

// Hands the message over and forgets it, so a refusal leaves nothing behind on the heap.
std::string last_error() {
  std::string message;
  message.swap(g_last_error);
  return message;
}
std::string simd_arch() { return xsimd::default_arch::name(); }
int live_models() { return static_cast<int>(g_models.size()); }

// Bytes of linear memory (grows, never shrinks), bytes malloc currently hands out, and where the
// stack pointer stands at this call depth (the same on every call if nothing leaks stack).
val memory_stats() {
  volatile char marker = 0;
  val stats = val::object();
  stats.set("wasmMemoryBytes", static_cast<double>(emscripten_get_heap_size()));
  stats.set("heapInUseBytes", static_cast<double>(mallinfo().uordblks));
  stats.set("stackPointer", static_cast<double>(reinterpret_cast<std::uintptr_t>(&marker)));
  return stats;
}

// Test hook: aborts the module the way a failed assertion would, so tests can check that the
// JS API reports a dead module on every later call and that a fresh instance works.
void abort_for_testing() { std::abort(); }

}  // namespace

EMSCRIPTEN_BINDINGS(headwise) {
  emscripten::function("validateConfig", &validate_config);
  emscripten::function("createModel", &create_model);
  emscripten::function("disposeModel", &dispose_model);
  emscripten::function("tensorView", &tensor_view);
  emscripten::function("runStep", &run_step);
  emscripten::function("keepIntermediates", &keep_intermediates);
  emscripten::function("shapeTrace", &shape_trace);
  emscripten::function("tensorTable", &tensor_table);
  emscripten::function("randomUniform", &random_uniform);
  emscripten::function("lastError", &last_error);
  emscripten::function("simdArch", &simd_arch);
  emscripten::function("liveModels", &live_models);
  emscripten::function("memoryStats", &memory_stats);
  emscripten::function("abortForTesting", &abort_for_testing);
}
