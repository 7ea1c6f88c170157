// What every entry point of the module shares: the out-of-memory reserve and the last error.
//
// Out of memory must be a refusal, never an abort. malloc and calloc return null when the module
// cannot grow (the core checks them), but without exceptions operator new (a message string, a
// node of a handle map) aborts the module when malloc fails, unless a new_handler frees memory.
// So a reserve is held; the handler gives it back and the failed allocation is retried from it.
// Every entry point that may allocate calls can_allocate() first, and refuses if it fails.
// Replacing operator new by one that returns null is not an option: callers may assume non-null.
#pragma once

#include <emscripten/val.h>

#include <string>

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

}  // namespace headwise::bindings
