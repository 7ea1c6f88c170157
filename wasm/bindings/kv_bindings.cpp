// Decoding with a KV cache and the cache sizes of published configurations (model_decode.cpp,
// cache_sizes.hpp): raw names for web/kv.js. Errors are a flag plus lastError(), never a throw.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include "boundary.hpp"
#include "cache_sizes.hpp"
#include "decode_entries.hpp"
#include "model.hpp"

using emscripten::val;
using headwise::Model;
using headwise::bindings::can_allocate;
using headwise::bindings::fail;
using headwise::bindings::text;

namespace {

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
  using Decode = headwise::bindings::DecodeEntries<Model>;
  emscripten::function("prepareDecode", &Decode::prepare);
  emscripten::function("decodeView", &Decode::view);
  emscripten::function("decodeStep", &Decode::step);
  emscripten::function("cacheState", &Decode::state);
  emscripten::function("resetCache", &Decode::reset);
  emscripten::function("cacheSizes", &cache_sizes);
  emscripten::function("cachePresets", &cache_presets);
}
