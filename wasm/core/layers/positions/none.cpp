// No positions at all: attention is then blind to word order (up to what a causal mask leaks).
#include "position_kind.hpp"

namespace headwise::layers {

extern const PositionKind kNoPositions{"none", "none", "nowhere", false, nullptr, nullptr, nullptr};

}  // namespace headwise::layers
