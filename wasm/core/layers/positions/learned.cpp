// Learned absolute positions (GPT-2): a trained (T, D) table whose row t is added to x0[t].
#include "position_kind.hpp"

namespace headwise::layers {

extern const PositionKind kLearnedPositions{
    "learned", "learned absolute",
    "input",   true,
    nullptr,   nullptr,
    nullptr,   "a table P, one row per position, seeded here; a trainer learns it"};

}  // namespace headwise::layers
