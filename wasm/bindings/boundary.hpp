// What every entry point of the module shares: the handle map, the out-of-memory reserve and the
// last error.
//
// Out of memory must be a refusal, never an abort. malloc and calloc return null when the module
// cannot grow (the core checks them), but without exceptions operator new (a message string, a
// node of a handle map) aborts the module when malloc fails, unless a new_handler frees memory.
// So a reserve is held; the handler gives it back and the failed allocation is retried from it.
// Every entry point that may allocate calls can_allocate() first, and refuses if it fails.
// Replacing operator new by one that returns null is not an option: callers may assume non-null.
#pragma once

#include <emscripten/val.h>

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>

namespace headwise::bindings {

// Takes the reserve back if it was spent; false if there is no room for it.
bool have_reserve();
// have_reserve(), or records the out-of-memory refusal and returns false.
bool can_allocate();

// Records a refusal (in a fixed buffer: recording must not need memory); returns false.
bool fail(const char* message);
bool fail(const std::string& message);
// Hands the last refusal's message over and forgets it.
emscripten::val take_last_error();

// A JS string from a C string (Embind's std::string conversion mallocs without checking).
inline emscripten::val text(const char* s) { return emscripten::val(s); }

extern const char* const kOutOfMemory;

// The one handle map: every object JavaScript holds (attention layers, trainers) lives here behind
// an integer handle, so JavaScript never holds a C++ object or a pointer. Handles are never
// reused, and a handle of one kind is no handle of another.
class HandleMap {
 public:
  HandleMap() { map_.reserve(kBuckets); }
  template <typename T>
  int add(std::unique_ptr<T> object) {
    map_.emplace(next_, Entry{&kKind<T>,
                              Owned(object.release(), [](void* p) { delete static_cast<T*>(p); })});
    return next_++;
  }
  // The object, or null if the handle is not a live one of this kind.
  template <typename T>
  T* find(int handle) const {
    const auto it = map_.find(handle);
    return it == map_.end() || it->second.kind != &kKind<T>
               ? nullptr
               : static_cast<T*>(it->second.object.get());
  }
  // Disposes of it (and takes the reserve back); false if it was no live one of this kind.
  template <typename T>
  bool erase(int handle) {
    const bool live = find<T>(handle) != nullptr;
    if (live) map_.erase(handle);
    have_reserve();
    return live;
  }
  template <typename T>
  int count() const {
    int n = 0;
    for (const auto& entry : map_) n += entry.second.kind == &kKind<T>;
    return n;
  }

 private:
  using Owned = std::unique_ptr<void, void (*)(void*)>;
  struct Entry {
    const void* kind;
    Owned object;
  };
  template <typename T>
  static inline const char kKind = 0;  // its address tells the kinds apart
  // Buckets for this many objects up front, so heap use returns exactly to where it was once
  // they are disposed (an unordered_map never gives buckets back).
  static constexpr std::size_t kBuckets = 1024;
  std::unordered_map<int, Entry> map_;
  int next_ = 1;
};
HandleMap& handles();

}  // namespace headwise::bindings
