// The "latest verb and latest noun" task: a seeded sequence generator that C++, JS and Python
// implement identically (mulberry32), so peers train on the same batches bit for bit.
//
// Vocabulary (21 ids): nouns 0-7, verbs 8-15, fillers 16-19, "?" = 20. A sequence is 11 words
// (noun if u < 0.35, verb if u < 0.70, else filler; the word within its kind is floor(next() *
// count)), redrawn until it holds a noun and a verb, then "?". Targets read the latest verb and
// noun: "verb-noun" = 8 * (verb - 8) + noun (64 classes), "verb" = verb - 8 (8 classes).
#pragma once

#include <cstddef>
#include <cstdint>

namespace headwise::train {

constexpr int kVocab = 21;
constexpr int kTokens = 12;
constexpr int kQuery = 20;  // "?"
constexpr int kNounBase = 0, kVerbBase = 8, kFillerBase = 16;

enum class Variant { kVerbNoun, kVerb };

int class_count(Variant v);

// mulberry32: a 32-bit state, one double in [0, 1) per call.
class Mulberry32 {
 public:
  explicit Mulberry32(std::uint32_t seed) : state_(seed) {}
  double next();

 private:
  std::uint32_t state_;
};

// The seed of the held-out set's generator: (seed XOR 0x5EED5EED) mod 2^32.
std::uint32_t held_out_seed(std::uint32_t seed);

// Writes the next sequence's 12 token ids to words.
void next_sequence(Mulberry32& rng, int* words);

// Position of the latest word with id in [base, base + 8) among the first 11, or -1.
int latest_of_kind(const int* words, int base);
int target_class(const int* words, Variant v);

}  // namespace headwise::train
