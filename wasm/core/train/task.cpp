#include "task.hpp"

namespace headwise::train {

int class_count(Variant v) { return v == Variant::kVerb ? 8 : 64; }

double Mulberry32::next() {
  state_ += 0x6D2B79F5u;
  std::uint32_t t = state_;
  t = (t ^ (t >> 15)) * (t | 1u);
  t = (t + (t ^ (t >> 7)) * (t | 61u)) ^ t;
  return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
}

std::uint32_t held_out_seed(std::uint32_t seed) { return seed ^ 0x5EED5EEDu; }

void next_sequence(Mulberry32& rng, int* words) {
  bool noun = false, verb = false;
  while (!(noun && verb)) {
    noun = verb = false;
    for (int i = 0; i < kTokens - 1; ++i) {
      const double u = rng.next();
      const int base = u < 0.35 ? kNounBase : u < 0.70 ? kVerbBase : kFillerBase;
      const int count = base == kFillerBase ? 4 : 8;
      words[i] = base + static_cast<int>(rng.next() * count);
      noun = noun || base == kNounBase;
      verb = verb || base == kVerbBase;
    }
  }
  words[kTokens - 1] = kQuery;
}

int latest_of_kind(const int* words, int base) {
  for (int i = kTokens - 2; i >= 0; --i) {
    if (words[i] >= base && words[i] < base + 8) return i;
  }
  return -1;
}

int target_class(const int* words, Variant v) {
  const int verb = words[latest_of_kind(words, kVerbBase)] - kVerbBase;
  if (v == Variant::kVerb) return verb;
  return 8 * verb + words[latest_of_kind(words, kNounBase)];
}

}  // namespace headwise::train
