#include <cstring>

#include "position_kind.hpp"

namespace headwise::layers {

extern const PositionKind kNoPositions, kLearnedPositions, kSinusoidalPositions, kRotaryPositions,
    kAlibiPositions;

namespace {
const PositionKind* const kKinds[] = {
    &kNoPositions,     &kLearnedPositions, &kSinusoidalPositions,
    &kRotaryPositions, &kAlibiPositions,   nullptr,
};
}  // namespace

const PositionKind* const* position_kinds() { return kKinds; }

const char* const* position_kind_names() {
  static const char* names[sizeof(kKinds) / sizeof(kKinds[0])] = {};
  if (!names[0])
    for (std::size_t i = 0; kKinds[i]; ++i) names[i] = kKinds[i]->name;
  return names;
}

const PositionKind* find_position_kind(const char* name) {
  for (const PositionKind* const* k = kKinds; *k; ++k)
    if (std::strcmp((*k)->name, name) == 0) return *k;
  return nullptr;
}

}  // namespace headwise::layers
