// createAttention({ attention: 'mla' }): the core's latent attention layer (latent_model.hpp) in
// the handle map, raw names for web/latent.js. Errors are a flag plus lastError(), never a throw.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <memory>

#include "attention_options.hpp"
#include "boundary.hpp"
#include "decode_entries.hpp"
#include "latent_model.hpp"

using emscripten::val;
using headwise::LatentModel;
using headwise::LatentTensor;
using headwise::bindings::can_allocate;
using headwise::bindings::fail;
using headwise::bindings::handles;
using headwise::bindings::text;

namespace {

LatentModel* find(int handle) { return headwise::bindings::find_layer<LatentModel>(handle); }

int create_latent(headwise::AttentionOptions options) {
  if (!can_allocate()) return 0;
  headwise::Limits limits;
  limits.address_space_bytes = emscripten_get_heap_max();
  headwise::Config c;
  std::unique_ptr<LatentModel> model;
  headwise::Status s = headwise::config_from_options(options, &limits, &c);
  if (s.is_ok())
    s = LatentModel::create(c, limits, static_cast<std::uint64_t>(options.seed), &model);
  if (!s.is_ok()) return fail(s.message()), 0;
  return handles().add(std::move(model));
}

bool dispose_latent(int handle) { return handles().erase<LatentModel>(handle); }

// [{ id, name, shape }] in id order; weights first (the first latentWeightCount rows).
val latent_tensors(int handle) {
  LatentModel* m = find(handle);
  if (!m) return val::null();
  val rows = val::array();
  for (int i = 0; i < headwise::kLatentTensorCount; ++i) {
    const auto id = static_cast<LatentTensor>(i);
    val shape = val::array();
    for (int d = 0; d < headwise::latent_tensor_rank(id); ++d)
      shape.call<void>("push", static_cast<double>(m->dims(id)[d]));
    val row = val::object();
    row.set(text("id"), i);
    row.set(text("name"), text(headwise::latent_tensor_name(id)));
    row.set(text("weight"), i < headwise::kLatentWeightCount);
    row.set(text("shape"), shape);
    rows.call<void>("push", row);
  }
  return rows;
}

// A view into wasm memory, valid only until the next allocation: the caller copies at once.
val latent_view(int handle, int id) {
  LatentModel* m = find(handle);
  if (!m || id < 0 || id >= headwise::kLatentTensorCount) return val::null();
  const auto tid = static_cast<LatentTensor>(id);
  return val(emscripten::typed_memory_view(m->tensor_size(tid), m->tensor(tid)));
}

bool latent_forward(int handle, bool absorbed, bool keep_attention) {
  if (!can_allocate()) return false;
  LatentModel* m = find(handle);
  if (!m) return false;
  const headwise::Status s = m->forward(absorbed, keep_attention);
  return s.is_ok() || fail(s.message());
}

// The backward: prepare (allocate, budget checked), write dy into gradient view
// kLatentWeightCount + 1, run; the weights' gradients are views 0.., dx view kLatentWeightCount.
bool latent_prepare_backward(int handle) {
  if (!can_allocate()) return false;
  LatentModel* m = find(handle);
  if (!m) return false;
  const headwise::Status s = m->prepare_backward();
  return s.is_ok() || fail(s.message());
}

val latent_gradient_view(int handle, int i) {
  LatentModel* m = find(handle);
  if (!m || !m->gradient(i)) return val::null();
  return val(emscripten::typed_memory_view(m->gradient_size(i), m->gradient(i)));
}

bool latent_backward(int handle) {
  if (!can_allocate()) return false;
  LatentModel* m = find(handle);
  if (!m) return false;
  const headwise::Status s = m->backward();
  return s.is_ok() || fail(s.message());
}

bool latent_weights_changed(int handle) {
  LatentModel* m = find(handle);
  if (!m) return false;
  m->weights_changed();
  return true;
}

}  // namespace

EMSCRIPTEN_BINDINGS(headwise_latent) {
  emscripten::function("createLatent", &create_latent);
  emscripten::function("disposeLatent", &dispose_latent);
  emscripten::function("latentTensors", &latent_tensors);
  emscripten::function("latentView", &latent_view);
  emscripten::function("latentForward", &latent_forward);
  emscripten::function("latentWeightsChanged", &latent_weights_changed);
  emscripten::function("latentPrepareBackward", &latent_prepare_backward);
  emscripten::function("latentGradientView", &latent_gradient_view);
  emscripten::function("latentBackward", &latent_backward);
  using Decode = headwise::bindings::DecodeEntries<LatentModel>;
  emscripten::function("latentPrepareDecode", &Decode::prepare);
  emscripten::function("latentDecodeView", &Decode::view);
  emscripten::function("latentDecodeStep", &Decode::step);
  emscripten::function("latentCacheState", &Decode::state);
  emscripten::function("latentResetCache", &Decode::reset);
}
