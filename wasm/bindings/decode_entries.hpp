// The KV-cache decoding a layer kind offers JS (the multi-head Model, the LatentModel): the same
// five entry points for any model class with prepare_decode(), decode_input() / decode_output(),
// decode(), cache_length(), cache_bytes(), reset_cache() and shape(). Errors are a flag plus
// lastError(), never a throw.
#pragma once

#include <emscripten/val.h>

#include <cstddef>

#include "boundary.hpp"
#include "status.hpp"

namespace headwise::bindings {

// The layer of kind M behind a handle, or null (said in lastError()).
template <class M>
M* find_layer(int handle) {
  M* m = handles().find<M>(handle);
  if (!m) fail("this attention layer was disposed");
  return m;
}

template <class M>
struct DecodeEntries {
  // Allocates the cache on first use (budget checked); refuses a full one.
  static bool prepare(int handle) {
    if (!can_allocate()) return false;
    M* m = find_layer<M>(handle);
    if (!m) return false;
    const Status s = m->prepare_decode();
    return s.is_ok() || fail(s.message());
  }

  // which 0: the step's input (B, dModel), 1: its output; valid until the next allocation.
  static emscripten::val view(int handle, int which) {
    M* m = find_layer<M>(handle);
    if (!m || !m->decode_input() || which < 0 || which > 1) return emscripten::val::null();
    const std::size_t n = m->shape().batch * m->shape().d_model;
    return emscripten::val(
        emscripten::typed_memory_view(n, which == 0 ? m->decode_input() : m->decode_output()));
  }

  static bool step(int handle) {
    if (!can_allocate()) return false;
    M* m = find_layer<M>(handle);
    if (!m) return false;
    const Status s = m->decode();
    return s.is_ok() || fail(s.message());
  }

  // { length, capacity, bytes }: positions cached, the most it holds, the bytes it holds (K and V,
  // or the latent and the RoPE key).
  static emscripten::val state(int handle) {
    M* m = find_layer<M>(handle);
    if (!m) return emscripten::val::null();
    emscripten::val out = emscripten::val::object();
    out.set(text("length"), static_cast<double>(m->cache_length()));
    out.set(text("capacity"), static_cast<double>(m->shape().tokens));
    out.set(text("bytes"), static_cast<double>(m->cache_bytes()));
    return out;
  }

  static bool reset(int handle) {
    M* m = find_layer<M>(handle);
    if (!m) return false;
    m->reset_cache();
    return true;
  }
};

}  // namespace headwise::bindings
