// Thin Embind layer over the core. Layers live in the handle map (boundary.hpp) so JavaScript never
// holds a C++ object or a pointer; errors come back as a flag plus lastError(), never a throw.
// Raw names: web/headwise.js is the public API.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <xsimd/xsimd.hpp>

#include "attention_options.hpp"
#include "boundary.hpp"
#include "latent_model.hpp"
#include "layers/positions/position_kind.hpp"
#include "model.hpp"
#include "option_table.hpp"
#include "rng.hpp"
#include "shape_trace.hpp"

using emscripten::val;
using headwise::AttentionOptions;
using headwise::Config;
using headwise::Model;
using headwise::bindings::can_allocate;
using headwise::bindings::fail;
using headwise::bindings::handles;
using headwise::bindings::have_reserve;
using headwise::bindings::string_list;
using headwise::bindings::text;

namespace {

// The defaults, with the budget capped at what this module can ever hold: its maximum memory
// (-sMAXIMUM_MEMORY), so that no size that passes can wrap the 32-bit size_t.
headwise::Limits module_limits() {
  headwise::Limits limits;
  limits.address_space_bytes = emscripten_get_heap_max();
  return limits;
}

Model* find(int handle) {
  Model* m = handles().find<Model>(handle);
  if (!m) fail("this attention layer was disposed");
  return m;
}

val validate_config(AttentionOptions options) {
  if (!can_allocate()) return text(headwise::bindings::kOutOfMemory);
  headwise::Limits limits = module_limits();
  Config c;
  headwise::Status s = headwise::config_from_options(options, &limits, &c);
  if (s.is_ok())
    s = c.latent ? headwise::LatentModel::validate(c, limits) : headwise::validate(c, limits);
  return text(s.message().c_str());
}

int create_model(AttentionOptions options) {
  if (!can_allocate()) return 0;
  headwise::Limits limits = module_limits();
  Config c;
  std::unique_ptr<Model> model;
  headwise::Status s = headwise::config_from_options(options, &limits, &c);
  if (s.is_ok() && c.latent)
    s = headwise::Status::error("attention \"mla\" is a latent layer: createLatent makes it");
  if (s.is_ok()) s = Model::create(c, limits, static_cast<std::uint64_t>(options.seed), &model);
  if (!s.is_ok()) return fail(s.message()), 0;
  return handles().add(std::move(model));
}

bool dispose_model(int handle) { return handles().erase<Model>(handle); }

// A view into wasm memory, valid only until the next allocation: the caller copies at once.
val tensor_view(int handle, int id) {
  Model* m = find(handle);
  if (!m || id < 0 || id >= headwise::kTensorCount) return val::null();
  const auto tid = static_cast<headwise::TensorId>(id);
  return val(emscripten::typed_memory_view(m->tensor_size(tid), m->tensor(tid)));
}

bool run_step(int handle, int step) {
  if (!can_allocate()) return false;
  Model* m = find(handle);
  if (!m) return false;
  if (step < 0 || step >= headwise::kStepCount) return fail("unknown step " + std::to_string(step));
  const headwise::Status s = m->run(static_cast<headwise::Step>(step));
  return s.is_ok() || fail(s.message());
}

bool keep_intermediates(int handle, bool keep) {
  if (!can_allocate()) return false;
  Model* m = find(handle);
  if (!m) return false;
  const headwise::Status s = m->keep_intermediates(keep);
  return s.is_ok() || fail(s.message());
}

val shape_trace(AttentionOptions options) {
  if (!can_allocate()) return val::null();
  headwise::Limits limits;
  Config c;
  headwise::Status s = headwise::config_from_options(options, &limits, &c);
  if (s.is_ok()) s = headwise::validate_shape(c, limits);
  if (s.is_ok() && c.latent)
    s = headwise::Status::error(
        "shapeTrace traces multi-head attention; a latent layer's tensors are layer.shapes");
  if (!s.is_ok()) return fail(s.message()), val::null();
  val entries = val::array();
  for (const auto& e : headwise::shape_trace(c)) {
    val shape = val::array();
    for (std::int64_t n : e.shape) shape.call<void>("push", static_cast<double>(n));
    val entry = val::object();
    entry.set(text("step"), text(e.step.c_str()));
    entry.set(text("name"), text(e.name.c_str()));
    entry.set(text("shape"), shape);
    entries.call<void>("push", entry);
  }
  return entries;
}

// The tensor table and the steps, so JavaScript takes its ids from the core instead of a copy:
// { tensors: [{ id, name, role, allocated, shape: ["D", "C"], stream, fanIn }], steps: [{ id, name
// }] }.
val tensor_table() {
  val tensors = val::array();
  for (int i = 0; i < headwise::kTensorCount; ++i) {
    const headwise::TensorRow& row = headwise::tensor_table()[i];
    val shape = val::array();
    for (int d = 0; d < row.shape.rank; ++d)
      shape.call<void>("push", val(headwise::dim_symbol(row.shape.dims[d])));
    val entry = val::object();
    entry.set("id", row.id);
    entry.set("name", row.name);
    entry.set("role", headwise::role_name(row.role));
    entry.set("allocated", headwise::alloc_name(row.alloc));
    entry.set("shape", shape);
    entry.set("stream", static_cast<double>(row.stream));
    entry.set("fanIn", row.fan_in == headwise::Dim::kNone ? val::null()
                                                          : val(headwise::dim_symbol(row.fan_in)));
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
  if (!can_allocate()) return val::null();
  // Checked before the cast: a count beyond the module's memory would wrap the 32-bit size_t.
  if (!(count >= 0) || std::floor(count) != count ||
      count > double(emscripten_get_heap_max() / sizeof(float))) {
    return fail(headwise::format_number(count) + " values do not fit in this module's memory"),
           val::null();
  }
  headwise::FloatBuffer buffer;
  if (!buffer.allocate(static_cast<std::size_t>(count))) {
    return fail("out of memory generating " + std::to_string(count) + " values"), val::null();
  }
  headwise::fill_uniform(buffer.data(), buffer.size(), static_cast<std::uint64_t>(seed),
                         static_cast<std::uint32_t>(stream), bound);
  return val::global("Float32Array")
      .new_(emscripten::typed_memory_view(buffer.size(), buffer.data()));
}

// createAttention's option table (option_table.hpp): what JavaScript reads its option names,
// types and defaults from.
val attention_option_table() {
  if (!can_allocate()) return val::null();
  return headwise::bindings::option_rows_value(headwise::attention_option_rows(),
                                               headwise::attention_option_row_count());
}

// The core's position kinds, in registry order: [{ name, label, entersAt, learnedTable, about }].
val position_kinds() {
  if (!can_allocate()) return val::null();
  val kinds = val::array();
  for (const headwise::layers::PositionKind* const* k = headwise::layers::position_kinds(); *k;
       ++k) {
    val kind = val::object();
    kind.set(text("name"), text((*k)->name));
    kind.set(text("label"), text((*k)->label));
    kind.set(text("entersAt"), text((*k)->enters));
    kind.set(text("learnedTable"), (*k)->learned_table);
    kind.set(text("about"), text((*k)->about));
    kinds.call<void>("push", kind);
  }
  return kinds;
}

val simd_arch() { return text(xsimd::default_arch::name()); }
// Layers of either kind (multi-head and latent).
int live_models() { return handles().count<Model>() + handles().count<headwise::LatentModel>(); }

// Bytes of linear memory (grows, never shrinks), bytes malloc currently hands out, and where the
// stack pointer stands at this call depth (the same on every call if nothing leaks stack).
val memory_stats() {
  volatile char marker = 0;
  val stats = val::object();
  have_reserve();  // heap use counts the out-of-memory reserve whenever there is room for it
  stats.set(text("wasmMemoryBytes"), static_cast<double>(emscripten_get_heap_size()));
  stats.set(text("heapInUseBytes"), static_cast<double>(mallinfo().uordblks));
  stats.set(text("stackPointer"), static_cast<double>(reinterpret_cast<std::uintptr_t>(&marker)));
  return stats;
}

// Test hook: aborts the module the way a failed assertion would, so tests can check that the
// JS API reports a dead module on every later call and that a fresh instance works.
void abort_for_testing() { std::abort(); }

}  // namespace

EMSCRIPTEN_BINDINGS(headwise) {
  headwise::bindings::register_option_fields("AttentionOptions", headwise::attention_option_rows(),
                                             headwise::attention_option_row_count());
  emscripten::function("attentionOptionTable", &attention_option_table);
  emscripten::function("positionKinds", &position_kinds);
  emscripten::function("validateConfig", &validate_config);
  emscripten::function("createModel", &create_model);
  emscripten::function("disposeModel", &dispose_model);
  emscripten::function("tensorView", &tensor_view);
  emscripten::function("runStep", &run_step);
  emscripten::function("keepIntermediates", &keep_intermediates);
  emscripten::function("shapeTrace", &shape_trace);
  emscripten::function("tensorTable", &tensor_table);
  emscripten::function("randomUniform", &random_uniform);
  emscripten::function("lastError", &headwise::bindings::take_last_error);
  emscripten::function("simdArch", &simd_arch);
  emscripten::function("liveModels", &live_models);
  emscripten::function("memoryStats", &memory_stats);
  emscripten::function("abortForTesting", &abort_for_testing);
}
