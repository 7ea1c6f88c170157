// "All X are Y", true or false, over a small taxonomy: the lecture's last question as a task.
// Every sentence pairs a kind with its own category ("all dogs are animals" is true, "all animals
// are dogs" false), so both orders hold the same words and only word order tells them apart: a
// bidirectional model without positions cannot beat chance (50%).
//
// Vocabulary (17 ids): "all" 0, "are" 1, kinds 2-9, categories 10-11, fillers 12-15, "?" 16.
// A sequence is 10 words: 0-3 leading fillers (below(4)), then "all X are Y", fillers up to
// position 8, "?" last. The kind (below(8)) picks the pair; below(2) == 1 puts the kind first
// (true, class 1), otherwise the category first (false, class 0). Fillers are below(4) each.
#include "task.hpp"

namespace headwise::tasks {

namespace order {

constexpr int kAll = 0, kAre = 1, kKindBase = 2, kCategoryBase = 10, kFillerBase = 12, kQuery = 16;
constexpr int kVocab = 17, kTokens = 10, kMaxLead = 3;

const char* const kWords[] = {"all",   "are",  "dogs",  "cats", "birds",   "fish",
                              "roses", "oaks", "ferns", "moss", "animals", "plants",
                              "so",    "and",  "then",  "yes",  "?"};
static_assert(sizeof(kWords) / sizeof(kWords[0]) == kVocab, "a word per id");
const char* const kGroups[] = {"answer", nullptr};

// Kinds 0-3 are animals, 4-7 plants.
int category_of(int kind) { return kCategoryBase + kind / 4; }

// Position of "all" (the subject follows it, the predicate is two further on).
int subject_at(const int* ids) {
  for (int i = 0; i <= kMaxLead; ++i)
    if (ids[i] == kAll) return i + 1;
  return -1;
}
int predicate_at(const int* ids) {
  const int s = subject_at(ids);
  return s < 0 ? -1 : s + 2;
}
// Probes are counted from "?" only (the last position).
int subject_from_question(const int* ids, const std::uint8_t*, int query) {
  return query == kTokens - 1 ? subject_at(ids) : -1;
}
int predicate_from_question(const int* ids, const std::uint8_t*, int query) {
  return query == kTokens - 1 ? predicate_at(ids) : -1;
}
const Probe kProbes[] = {
    {"subject", subject_from_question}, {"predicate", predicate_from_question}, {nullptr, nullptr}};
const AnswerPart kParts[] = {{nullptr, nullptr}};

void fill(Mulberry32& rng, std::size_t i, const Batch& b) {
  int* ids = b.ids + i * kTokens;
  const int lead = rng.below(kMaxLead + 1);
  const int kind = rng.below(8);
  const bool kind_first = rng.below(2) == 1;
  int t = 0;
  while (t < lead) ids[t++] = kFillerBase + rng.below(4);
  ids[t++] = kAll;
  ids[t++] = kind_first ? kKindBase + kind : category_of(kind);
  ids[t++] = kAre;
  ids[t++] = kind_first ? category_of(kind) : kKindBase + kind;
  while (t < kTokens - 1) ids[t++] = kFillerBase + rng.below(4);
  ids[kTokens - 1] = kQuery;
  b.targets[i] = kind_first ? 1 : 0;
  b.mask[i] = 1;
  b.groups[i] = 0;
}

}  // namespace order

extern const Task kOrderTask{"order",
                             "\"all X are Y\": true or false; only word order tells (2 classes)",
                             order::kVocab,
                             order::kTokens,
                             2,
                             layers::Readout::kLast,
                             order::kWords,
                             order::kGroups,
                             order::kProbes,
                             order::kParts,
                             order::fill};

}  // namespace headwise::tasks
