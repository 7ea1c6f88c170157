#include "induction.hpp"

#include "task.hpp"

namespace headwise::tasks {

namespace induction {

Layout next_sequence(Mulberry32& rng, int* ids) {
  Layout s;
  s.length = kMinLength + rng.below(kMaxLength - kMinLength + 1);
  const int free = kTokens - 2 * s.length;
  s.first = rng.below(free + 1);
  s.second = s.first + s.length + rng.below(free - s.first + 1);
  for (int t = 0; t < kTokens; ++t) {
    const bool repeat = t >= s.second && t < s.second + s.length;
    ids[t] = repeat ? ids[t - (s.second - s.first)] : rng.below(kVocab);
  }
  return s;
}

Group group_of(const Layout& s, int t) {
  const int next = t + 1;
  if (next >= s.first && next < s.first + s.length) return kFirstCopy;
  if (next > s.second && next < s.second + s.length) return kRepeat;
  return kOther;
}

namespace {

const char* const kGroups[] = {"first copy", "repeat", "other", nullptr};

// The ids have no meaning beyond being told apart.
const char* const kWords[] = {
    "t0",  "t1",  "t2",  "t3",  "t4",  "t5",  "t6",  "t7",  "t8",  "t9",  "t10", "t11", "t12",
    "t13", "t14", "t15", "t16", "t17", "t18", "t19", "t20", "t21", "t22", "t23", "t24", "t25",
    "t26", "t27", "t28", "t29", "t30", "t31", "t32", "t33", "t34", "t35", "t36", "t37", "t38",
    "t39", "t40", "t41", "t42", "t43", "t44", "t45", "t46", "t47", "t48", "t49", "t50", "t51",
    "t52", "t53", "t54", "t55", "t56", "t57", "t58", "t59", "t60", "t61", "t62", "t63"};
static_assert(sizeof(kWords) / sizeof(kWords[0]) == kVocab, "a word per id");

// From a position of the second copy (a "repeat" row), the earlier occurrence of its token, found
// from the groups: the repeat rows are b..b+L-2 and the first-copy rows end at a+L-2.
int earlier_occurrence(const std::uint8_t* groups, int query) {
  if (groups[query] != kRepeat) return -1;
  int second = -1, repeats = 0, first_end = -1;
  for (int t = 0; t < kTokens; ++t) {
    if (groups[t] == kRepeat) {
      if (second < 0) second = t;
      ++repeats;
    }
    if (groups[t] == kFirstCopy) first_end = t;
  }
  const int length = repeats + 1, first = first_end + 2 - length;
  return query - (second - first);
}
// The induction head's target: the token after the earlier occurrence (what comes next).
int after_earlier_occurrence(const int*, const std::uint8_t* groups, int query) {
  const int j = earlier_occurrence(groups, query);
  return j < 0 ? -1 : j + 1;
}
// A duplicate-token head's: the earlier occurrence itself.
int duplicate(const int*, const std::uint8_t* groups, int query) {
  return earlier_occurrence(groups, query);
}
const Probe kProbes[] = {
    {"induction", after_earlier_occurrence}, {"duplicate", duplicate}, {nullptr, nullptr}};
const AnswerPart kParts[] = {{nullptr, nullptr}};

void fill(Mulberry32& rng, std::size_t i, const Batch& b) {
  int* ids = b.ids + i * kTokens;
  const Layout s = next_sequence(rng, ids);
  int* targets = b.targets + i * kTokens;
  std::uint8_t* mask = b.mask + i * kTokens;
  std::uint8_t* groups = b.groups + i * kTokens;
  for (int t = 0; t < kTokens; ++t) {
    const bool counted = t + 1 < kTokens;
    targets[t] = counted ? ids[t + 1] : 0;
    mask[t] = counted;
    groups[t] = counted ? group_of(s, t) : kOther;
  }
}

}  // namespace

}  // namespace induction

extern const Task kInductionTask{
    "induction",
    "random tokens with a segment repeated at a random place: predict every next token",
    induction::kVocab,
    induction::kTokens,
    induction::kVocab,
    layers::Readout::kEvery,
    induction::kWords,
    induction::kGroups,
    induction::kProbes,
    induction::kParts,
    induction::fill,
    nullptr,
    512};  // 2 layers of 4 heads of 16, attention-only: 512 x 3.4 M multiply-adds

}  // namespace headwise::tasks
