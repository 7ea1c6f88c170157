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

const PositionKind* find_position_kind(const char* name) {
  for (const PositionKind* const* k = kKinds; *k; ++k)
    if (std::strcmp((*k)->name, name) == 0) return *k;
  return nullptr;
}

}  // namespace headwise::layers
