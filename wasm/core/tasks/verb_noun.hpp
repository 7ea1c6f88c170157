// The "latest verb and latest noun" task of the lecture: one softmax row from "?" cannot find
// both words at once, two heads can each find one.
//
// Vocabulary (21 ids): nouns 0-7, verbs 8-15, fillers 16-19, "?" = 20. A sequence is 11 words
// (noun if u < 0.35, verb if u < 0.70, else filler; the word within its kind is floor(next() *
// count)), redrawn until it holds a noun and a verb, then "?". The readout reads "?": task
// "verb-noun" has 64 classes, 8 * (verb - 8) + noun; task "verb" (the control one head can
// solve) has 8, verb - 8.
#pragma once

#include "mulberry32.hpp"

namespace headwise::tasks::verb_noun {

constexpr int kVocab = 21;
constexpr int kTokens = 12;
constexpr int kQuery = 20;  // "?"
constexpr int kNounBase = 0, kVerbBase = 8, kFillerBase = 16;

// Writes the next sequence's 12 token ids to ids.
void next_sequence(Mulberry32& rng, int* ids);
// Position of the latest word with id in [base, base + 8) among the first 11, or -1.
int latest_of_kind(const int* ids, int base);
int verb_noun_class(const int* ids);
int verb_class(const int* ids);

}  // namespace headwise::tasks::verb_noun
