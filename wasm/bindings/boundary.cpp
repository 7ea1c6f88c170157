#include "boundary.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace headwise::bindings {

namespace {

constexpr std::size_t kReserveBytes = 256 * 1024;
void* g_reserve = nullptr;
char g_last_error[1024] = "";

void release_reserve() {
  // Reached only if one call allocates more than the reserve after memory filled up; there is no
  // way left to report it, and returning would retry for ever.
  if (g_reserve == nullptr) std::abort();
  std::free(g_reserve);
  g_reserve = nullptr;
}

// Built with the module, so its buckets are taken before any layer or trainer exists (heap use
// returns exactly to where it was once they are disposed).
HandleMap g_handles;

[[maybe_unused]] const bool g_reserve_installed =
    (std::set_new_handler(release_reserve), have_reserve());

}  // namespace

const char* const kOutOfMemory =
    "out of memory: the module's memory is full (dispose() layers and trainers you no longer need)";

bool have_reserve() {
  if (g_reserve == nullptr) g_reserve = std::malloc(kReserveBytes);
  return g_reserve != nullptr;
}

bool can_allocate() { return have_reserve() || fail(kOutOfMemory); }

HandleMap& handles() { return g_handles; }

bool fail(const char* message) {
  std::strncpy(g_last_error, message, sizeof g_last_error - 1);
  g_last_error[sizeof g_last_error - 1] = '\0';
  return false;
}
bool fail(const std::string& message) { return fail(message.c_str()); }

emscripten::val take_last_error() {
  emscripten::val message = text(g_last_error);
  g_last_error[0] = '\0';
  return message;
}

}  // namespace headwise::bindings
