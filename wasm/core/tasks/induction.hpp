// The induction task (Elhage et al. 2021; Olsson et al. 2022): random tokens in which a segment s
// appears twice, at random places; the model predicts every next token, and only a model that
// finds the earlier occurrence of the current token and copies what followed it can predict the
// second copy. Two layers can (a previous-token head, then an induction head); one cannot.
//
// A sequence of T = 64 ids from a vocabulary of 64, drawn in this order: the segment length
// L = 12 + below(20) (U[12, 31]); the free positions F = T - 2L are split as a = below(F + 1)
// before the first copy and g = below(F - a + 1) between the copies, so the first copy starts
// at a and the second at b = a + L + g (never a fixed period); then each position's id, below(64)
// in order, except that the second copy repeats the first. Position t predicts id t + 1 (the last
// position is not counted). Loss groups by what position t predicts: "first copy" (ids a..a+L-1),
// "repeat" (ids b+1..b+L-1: the second copy after its first token, what copying can predict),
// "other" (everything else, the first id of the second copy included).
#pragma once

#include "mulberry32.hpp"

namespace headwise::tasks::induction {

constexpr int kVocab = 64;
constexpr int kTokens = 64;
constexpr int kMinLength = 12, kMaxLength = 31;
enum Group : unsigned char { kFirstCopy = 0, kRepeat = 1, kOther = 2 };

struct Layout {
  int length, first, second;  // L, a, b
};

// Writes the next sequence's kTokens ids to ids; returns where its copies are.
Layout next_sequence(Mulberry32& rng, int* ids);
// The loss group of the row at position t (which predicts id t + 1) of a sequence laid out so.
Group group_of(const Layout& layout, int t);

}  // namespace headwise::tasks::induction
