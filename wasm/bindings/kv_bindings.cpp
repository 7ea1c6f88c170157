// Decoding with a KV cache and the cache sizes of published configurations (model_decode.cpp,
// cache_sizes.hpp): raw names for web/kv.js. Errors are a flag plus lastError(), never a throw.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include "boundary.hpp"
#include "cache_sizes.hpp"
#include "model.hpp"

using emscripten::val;
using headwise::Model;
using headwise::bindings::can_allocate;
using headwise::bindings::fail;
using headwise::bindings::handles;
using headwise::bindings::text;

namespace {

Model* find(int handle) {
  Model* m = handles().find<Model>(handle);
  if (!m) fail("this attention layer was disposed");
  return m;
}

// Allocates the cache on first use (budget checked); refuses a full one.
bool prepare_decode(int handle) {
  if (!can_allocate()) return false;
  Model* m = find(handle);
  if (!m) return false;
  const headwise::Status s = m->prepare_decode();
  return s.is_ok() || fail(s.message());
}

// which 0: the step's input (B, dModel), 1: its output; valid until the next allocation.
val decode_view(int handle, int which) {
  Model* m = find(handle);
  if (!m || !m->decode_input() || which < 0 || which > 1) return val::null();
  const std::size_t n = m->shape().batch * m->shape().d_model;
  return val(emscripten::typed_memory_view(n, which == 0 ? m->decode_input() : m->decode_output()));
}

bool decode_step(int handle) {
  if (!can_allocate()) return false;
  Model* m = find(handle);
  if (!m) return false;
  const headwise::Status s = m->decode();
  return s.is_ok() || fail(s.message());
}

// { length, capacity, bytes }: positions cached, the most it holds, K and V bytes held.
val cache_state(int handle) {
  Model* m = find(handle);
  if (!m) return val::null();
  val state = val::object();
  state.set(text("length"), static_cast<double>(m->cache_length()));
  state.set(text("capacity"), static_cast<double>(m->shape().tokens));
  state.set(text("bytes"), static_cast<double>(m->cache_bytes()));
  return state;
}

bool reset_cache(int handle) {
  Model* m = find(handle);
  if (!m) return false;
  m->reset_cache();
  return true;
}

val sizes_value(const headwise::CacheSizes& s) {
  val out = val::object();
  out.set(text("numbersPerTokenPerLayer"), static_cast<double>(s.numbers_per_token_per_layer));
  out.set(text("mhaNumbersPerTokenPerLayer"),
          static_cast<double>(s.mha_numbers_per_token_per_layer));
  out.set(text("bytesPerToken"), s.bytes_per_token);
  out.set(text("mhaBytesPerToken"), s.mha_bytes_per_token);
  out.set(text("bytesPerSequence"), s.bytes_per_sequence);
  return out;
}

val cache_sizes(double layers, double heads, double kv_heads, double head_dim, double kv_latent,
                double rope_dim, double tokens, double bytes_per_number) {
  if (!can_allocate()) return val::null();
  const headwise::CacheShape shape{layers,    heads,    kv_heads, head_dim,
                                   kv_latent, rope_dim, tokens,   bytes_per_number};
  headwise::CacheSizes sizes{};
  const headwise::Status s = headwise::cache_sizes(shape, &sizes);
  if (!s.is_ok()) return fail(s.message()), val::null();
  return sizes_value(sizes);
}

// [{ name, label, source, layers, heads, kvHeads, headDim, kvLatent, ropeDim, tokens,
// bytesPerNumber }]
val cache_presets() {
  if (!can_allocate()) return val::null();
  val list = val::array();
  for (const headwise::CachePreset* p = headwise::cache_presets(); p->name; ++p) {
    val row = val::object();
    const headwise::CacheShape& c = p->shape;
    row.set(text("name"), text(p->name));
    row.set(text("label"), text(p->label));
    row.set(text("source"), text(p->source));
    row.set(text("layers"), c.layers);
    row.set(text("heads"), c.heads);
    row.set(text("kvHeads"), c.kv_heads);
    row.set(text("headDim"), c.head_dim);
    row.set(text("kvLatent"), c.kv_latent);
    row.set(text("ropeDim"), c.rope_dim);
    row.set(text("tokens"), c.tokens);
    row.set(text("bytesPerNumber"), c.bytes_per_number);
    list.call<void>("push", row);
  }
  return list;
}

}  // namespace

EMSCRIPTEN_BINDINGS(headwise_kv) {
  emscripten::function("prepareDecode", &prepare_decode);
  emscripten::function("decodeView", &decode_view);
  emscripten::function("decodeStep", &decode_step);
  emscripten::function("cacheState", &cache_state);
  emscripten::function("resetCache", &reset_cache);
  emscripten::function("cacheSizes", &cache_sizes);
  emscripten::function("cachePresets", &cache_presets);
}
