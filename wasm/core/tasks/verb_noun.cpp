#include "verb_noun.hpp"

#include "task.hpp"

namespace headwise::tasks {

namespace verb_noun {

void next_sequence(Mulberry32& rng, int* ids) {
  bool noun = false, verb = false;
  while (!(noun && verb)) {
    noun = verb = false;
    for (int i = 0; i < kTokens - 1; ++i) {
      const double u = rng.next();
      const int base = u < 0.35 ? kNounBase : u < 0.70 ? kVerbBase : kFillerBase;
      const int count = base == kFillerBase ? 4 : 8;
      ids[i] = base + static_cast<int>(rng.next() * count);
      noun = noun || base == kNounBase;
      verb = verb || base == kVerbBase;
    }
  }
  ids[kTokens - 1] = kQuery;
}

int latest_of_kind(const int* ids, int base) {
  for (int i = kTokens - 2; i >= 0; --i) {
    if (ids[i] >= base && ids[i] < base + 8) return i;
  }
  return -1;
}

int verb_class(const int* ids) { return ids[latest_of_kind(ids, kVerbBase)] - kVerbBase; }

int verb_noun_class(const int* ids) {
  return 8 * verb_class(ids) + ids[latest_of_kind(ids, kNounBase)];
}

namespace {

const char* const kWords[] = {"dog",  "ball",   "cat",   "bird", "boy",  "girl", "stick",
                              "bone", "chase",  "catch", "see",  "like", "find", "drop",
                              "kick", "follow", "the",   "a",    "it",   "and",  "?"};
static_assert(sizeof(kWords) / sizeof(kWords[0]) == kVocab, "a word per id");
const char* const kGroups[] = {"answer", nullptr};

// Counted from "?" only.
int latest_verb(const int* ids, const std::uint8_t*, int query) {
  return query == kTokens - 1 ? latest_of_kind(ids, kVerbBase) : -1;
}
int latest_noun(const int* ids, const std::uint8_t*, int query) {
  return query == kTokens - 1 ? latest_of_kind(ids, kNounBase) : -1;
}
const Probe kProbes[] = {{"verb", latest_verb}, {"noun", latest_noun}, {nullptr, nullptr}};
int verb_of(int cls) { return cls / 8; }
int noun_of(int cls) { return cls % 8; }
int the_class(int cls) { return cls; }
const AnswerPart kVerbNounParts[] = {{"verb", verb_of}, {"noun", noun_of}, {nullptr, nullptr}};
const AnswerPart kVerbParts[] = {{"verb", the_class}, {nullptr, nullptr}};

template <int (*Target)(const int*)>
void fill(Mulberry32& rng, std::size_t i, const Batch& b) {
  int* ids = b.ids + i * kTokens;
  next_sequence(rng, ids);
  b.targets[i] = Target(ids);
  b.mask[i] = 1;
  b.groups[i] = 0;
}

}  // namespace

}  // namespace verb_noun

extern const Task kVerbNounTask{"verb-noun",
                                "the latest verb and the latest noun before \"?\" (64 classes)",
                                verb_noun::kVocab,
                                verb_noun::kTokens,
                                64,
                                layers::Readout::kLast,
                                verb_noun::kWords,
                                verb_noun::kGroups,
                                verb_noun::kProbes,
                                verb_noun::kVerbNounParts,
                                verb_noun::fill<verb_noun::verb_noun_class>};

extern const Task kVerbTask{"verb",
                            "only the latest verb before \"?\" (8 classes): one head suffices",
                            verb_noun::kVocab,
                            verb_noun::kTokens,
                            8,
                            layers::Readout::kLast,
                            verb_noun::kWords,
                            verb_noun::kGroups,
                            verb_noun::kProbes,
                            verb_noun::kVerbParts,
                            verb_noun::fill<verb_noun::verb_class>};

}  // namespace headwise::tasks
