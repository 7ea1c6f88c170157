#include "story.hpp"

#include <cstring>

#include "task.hpp"

namespace headwise::tasks {

namespace story {

namespace {

// The vocabulary, one word class after another (every word once). It holds every word of the
// sentences the README, the docs, the explorer and the decks show (the lecture's sentence, the
// verb-and-noun task's and the order task's words, the class's "the animal didn't cross the
// street because it was too tired" and "the girl kicked the stick and found a bone").
const char* const kWords[] = {
    // function words (25)
    "the", "a", ",", ".", "?", "but", "could", "not", "who", "is", "are", "was", "very", "there",
    "went", "to", "with", "and", "didn't", "because", "too", "so", "then", "yes", "all",
    // pronouns: subject, object, possessive ("her" twice: object and possessive) (10)
    "he", "she", "it", "they", "him", "her", "them", "his", "its", "their",
    // male nouns (20)
    "boy", "man", "king", "father", "brother", "son", "uncle", "prince", "grandfather", "husband",
    "nephew", "gentleman", "wizard", "knight", "monk", "lord", "duke", "emperor", "waiter", "actor",
    // female nouns (20)
    "girl", "woman", "queen", "mother", "sister", "daughter", "aunt", "princess", "grandmother",
    "wife", "niece", "lady", "witch", "nun", "duchess", "empress", "waitress", "actress", "bride",
    "mum",
    // animals (30)
    "dog", "cat", "bird", "animal", "horse", "cow", "fox", "mouse", "rabbit", "duck", "goat", "pig",
    "frog", "owl", "bear", "wolf", "lion", "tiger", "snake", "monkey", "hen", "deer", "camel",
    "whale", "shark", "eagle", "crow", "bee", "donkey", "puppy",
    // things, each taking "a" (30)
    "ball", "stick", "bone", "box", "book", "cup", "hat", "key", "bag", "coin", "pen", "toy",
    "kite", "drum", "doll", "map", "ring", "shoe", "sock", "bell", "lamp", "chair", "table", "rope",
    "cake", "bottle", "basket", "letter", "ticket", "moss",
    // plural nouns (30)
    "dogs", "cats", "birds", "animals", "plants", "roses", "oaks", "ferns", "fish", "boys", "girls",
    "men", "women", "children", "horses", "cows", "foxes", "mice", "rabbits", "ducks", "goats",
    "pigs", "frogs", "owls", "bears", "wolves", "lions", "kings", "queens", "farmers",
    // names: male (15), female (15)
    "tom", "sam", "max", "ben", "leo", "jack", "paul", "mark", "john", "peter", "luke", "adam",
    "noah", "liam", "owen", "anna", "mia", "lily", "emma", "sara", "kate", "lucy", "ella", "julia",
    "nora", "amy", "zoe", "alice", "ruth", "eva",
    // verbs of the chase template's first clause (20)
    "chased", "followed", "watched", "found", "kicked", "pushed", "pulled", "bit", "hit", "liked",
    "loved", "heard", "carried", "called", "visited", "fed", "noticed", "tickled", "caught",
    "spotted",
    // verbs after "could not" (20)
    "catch", "reach", "find", "stop", "hold", "see", "follow", "chase", "like", "drop", "kick",
    "cross", "carry", "move", "lift", "hear", "keep", "pull", "push", "lose",
    // giving (10), thanking (10), the relative clause's (8), losing (10)
    "gave", "showed", "sent", "brought", "threw", "handed", "sold", "lent", "offered", "passed",
    "thanked", "hugged", "helped", "kissed", "praised", "greeted", "trusted", "blamed", "forgave",
    "admired", "saw", "met", "knew", "fought", "teased", "scared", "woke", "bumped", "lost",
    "dropped", "forgot", "broke", "hid", "washed", "painted", "mended", "wanted", "needed",
    // near (5)
    "near", "behind", "beside", "under", "above",
    // adjectives (30)
    "happy", "sad", "tired", "big", "small", "hungry", "angry", "old", "young", "red", "brown",
    "fast", "slow", "quiet", "loud", "kind", "brave", "clever", "lazy", "sleepy", "funny", "shy",
    "proud", "calm", "wet", "cold", "warm", "clean", "dirty", "new",
    // places (20)
    "park", "street", "school", "garden", "forest", "beach", "river", "market", "farm", "zoo",
    "city", "house", "shop", "lake", "field", "hill", "town", "village", "castle", "library",
    // playing (10)
    "played", "talked", "sat", "walked", "danced", "sang", "ate", "laughed", "spoke", "worked"};
constexpr int kVocab = int(sizeof(kWords) / sizeof(kWords[0]));

// The classes, in the order above.
constexpr WordClass after(WordClass c, int count) { return {c.begin + c.count, count}; }
constexpr WordClass kFunction{0, 25};
constexpr WordClass kPronouns = after(kFunction, 10);
constexpr WordClass kMale = after(kPronouns, 20);
constexpr WordClass kFemale = after(kMale, 20);
constexpr WordClass kAnimals = after(kFemale, 30);
constexpr WordClass kThings = after(kAnimals, 30);
constexpr WordClass kIt{kAnimals.begin, kAnimals.count + kThings.count};
constexpr WordClass kTakesA{kThings.begin, kThings.count - 1};  // not "moss"
constexpr WordClass kPlurals = after(kThings, 30);
constexpr WordClass kMaleNames = after(kPlurals, 15);
constexpr WordClass kFemaleNames = after(kMaleNames, 15);
constexpr WordClass kNames{kMaleNames.begin, 30};
constexpr WordClass kChaseVerbs = after(kFemaleNames, 20);
constexpr WordClass kCatchVerbs = after(kChaseVerbs, 20);
constexpr WordClass kGiveVerbs = after(kCatchVerbs, 10);
constexpr WordClass kThankVerbs = after(kGiveVerbs, 10);
constexpr WordClass kSawVerbs = after(kThankVerbs, 8);
constexpr WordClass kLoseVerbs = after(kSawVerbs, 10);
constexpr WordClass kNear = after(kLoseVerbs, 5);
constexpr WordClass kAdjectives = after(kNear, 30);
constexpr WordClass kPlaces = after(kAdjectives, 20);
constexpr WordClass kPlayVerbs = after(kPlaces, 10);
static_assert(kPlayVerbs.begin + kPlayVerbs.count == kVocab, "every word in one class");
static_assert(kVocab >= 300, "at least 300 words");

// Fixed words by id (checked against kWords in the tests).
enum Fixed : int {
  kThe = 0,
  kA = 1,
  kComma = 2,
  kStop = 3,
  kBut = 5,
  kCould = 6,
  kNot = 7,
  kWho = 8,
  kIs = 9,
  kAre = 10,
  kWas = 11,
  kVery = 12,
  kThere = 13,
  kWent = 14,
  kTo = 15,
  kWith = 16,
};
// pronoun(case, class) = kPronouns.begin + kPronounIndex[case][class]
constexpr int kPronounIndex[3][4] = {{0, 1, 2, 3}, {4, 5, 2, 6}, {7, 5, 8, 9}};

int draw(Mulberry32& rng, WordClass c) { return c.begin + rng.below(c.count); }
const WordClass kByPronoun[4] = {kMale, kFemale, kIt, kPlurals};
int draw_noun(Mulberry32& rng) { return draw(rng, kByPronoun[rng.below(4)]); }
int draw_numbered_noun(Mulberry32& rng) {
  if (rng.below(2) == 1) return draw(rng, kPlurals);
  return draw(rng, kByPronoun[rng.below(3)]);
}

// Appends to a sentence under construction.
struct Writer {
  int* ids;
  int n = 0;
  Record* records;
  int count = 0;
  int put(int id) { return ids[n] = id, n++; }
  void record(Kind kind, int query, int antecedent, int distractor, bool counted) {
    records[count++] = Record{kind, counted, query, antecedent, distractor, ids[query + 1]};
  }
};

bool same_pronoun(const int* ids, int a, int b) {
  return pronoun_class(ids[a]) == pronoun_class(ids[b]);
}
bool plural(int id) { return kPlurals.has(id); }

void write_sentence(Mulberry32& rng, Writer& w) {
  int* ids = w.ids;
  switch (rng.below(5)) {
    case kChase: {
      w.put(kThe);
      const int x = w.put(draw_noun(rng));
      w.put(draw(rng, kChaseVerbs));
      w.put(kThe);
      const int y = w.put(draw_noun(rng));
      w.put(kComma);
      const int but = w.put(kBut);
      w.put(pronoun(0, pronoun_class(ids[x])));
      w.put(kCould);
      w.put(kNot);
      const int verb = w.put(draw(rng, kCatchVerbs));
      w.put(pronoun(1, pronoun_class(ids[y])));
      w.put(kStop);
      const bool counted = !same_pronoun(ids, x, y);
      w.record(kSubject, but, x, y, counted);
      w.record(kObject, verb, y, x, counted);
      break;
    }
    case kGive: {
      w.put(kThe);
      const int x = w.put(draw_noun(rng));
      w.put(draw(rng, kGiveVerbs));
      w.put(kThe);
      const int y = w.put(draw_noun(rng));
      w.put(kA);
      w.put(draw(rng, kTakesA));
      const int stop = w.put(kStop);
      w.put(pronoun(0, pronoun_class(ids[y])));
      const int thanked = w.put(draw(rng, kThankVerbs));
      w.put(pronoun(1, pronoun_class(ids[x])));
      w.put(kStop);
      const bool counted = !same_pronoun(ids, x, y);
      w.record(kSubject, stop, y, x, counted);
      w.record(kObject, thanked, x, y, counted);
      break;
    }
    case kPossessiveTemplate: {
      w.put(kThe);
      const int x = w.put(draw_noun(rng));
      w.put(kWho);
      w.put(draw(rng, kSawVerbs));
      w.put(kThe);
      const int y = w.put(draw_noun(rng));
      const int lost = w.put(draw(rng, kLoseVerbs));
      w.put(pronoun(2, pronoun_class(ids[x])));
      w.put(draw(rng, kTakesA));
      w.put(kStop);
      w.record(kPossessive, lost, x, y, !same_pronoun(ids, x, y));
      break;
    }
    case kAgreementTemplate: {
      w.put(kThe);
      const int n1 = w.put(draw_numbered_noun(rng));
      w.put(draw(rng, kNear));
      w.put(kThe);
      const int n2 = w.put(draw_numbered_noun(rng));
      w.put(plural(ids[n1]) ? kAre : kIs);
      w.put(draw(rng, kAdjectives));
      w.put(kStop);
      w.record(kAgreement, n2, n1, n2, plural(ids[n1]) != plural(ids[n2]));
      break;
    }
    default: {
      const int first = w.put(draw(rng, kNames));
      w.put(kWent);
      w.put(kTo);
      w.put(kThe);
      w.put(draw(rng, kPlaces));
      w.put(kStop);
      const int there = w.put(kThere);
      const int name = w.put(ids[first]);
      w.put(draw(rng, kPlayVerbs));
      w.put(kWith);
      w.put(kThe);
      const int y = w.put(draw(rng, rng.below(2) == 1 ? kFemale : kMale));
      const int stop = w.put(kStop);
      w.put(pronoun(0, pronoun_class(ids[name])));
      w.put(kWas);
      w.put(kVery);
      w.put(draw(rng, kAdjectives));
      w.put(kStop);
      w.record(kName, there, first, -1, true);
      w.record(kSubject, stop, name, y, !same_pronoun(ids, name, y));
      break;
    }
  }
}

// Where a template's query sits, from the tokens: the antecedent's and distractor's offsets
// from the query, or false where the tokens are not that template.
bool offsets(const int* ids, int q, Kind kind, int* a, int* d) {
  const auto at = [&](int back, int id) { return q - back >= 0 && ids[q - back] == id; };
  const auto in = [&](int back, WordClass c) { return q - back >= 0 && c.has(ids[q - back]); };
  switch (kind) {
    case kSubject:
      if (ids[q] == kBut && at(1, kComma) && at(6, kThe)) return *a = 5, *d = 2, true;
      if (ids[q] == kStop && at(2, kA) && at(7, kThe)) return *a = 3, *d = 6, true;
      if (ids[q] == kStop && at(3, kWith) && in(5, kNames)) return *a = 5, *d = 1, true;
      return false;
    case kObject:
      if (in(0, kCatchVerbs) && at(2, kCould) && at(4, kBut)) return *a = 6, *d = 9, true;
      if (in(0, kThankVerbs) && at(2, kStop) && at(9, kThe)) return *a = 8, *d = 5, true;
      return false;
    case kPossessive:
      if (in(0, kLoseVerbs) && at(4, kWho) && at(6, kThe)) return *a = 5, *d = 1, true;
      return false;
    case kAgreement:
      if (at(1, kThe) && in(2, kNear) && at(4, kThe)) return *a = 3, *d = 0, true;
      return false;
    case kName:
      if (ids[q] == kThere && at(1, kStop) && at(4, kTo) && in(6, kNames)) {
        return *a = 6, *d = -1, true;
      }
      return false;
    default:
      return false;
  }
}

// The probes, from the row's group: where a head that does the job looks.
template <Kind K>
int probe(const int* ids, const std::uint8_t* groups, int query) {
  return groups[query] == K ? antecedent_of(ids, query, K) : -1;
}
int two_back(const int*, const std::uint8_t*, int query) { return query >= 2 ? query - 2 : -1; }

const char* const kGroups[] = {"subject", "object",       "possessive", "agreement",
                               "name",    "same pronoun", "other",      nullptr};
// Named apart from the groups: the order task's probe "subject" names a role of its own.
const Probe kProbes[] = {{"subjectAntecedent", probe<kSubject>},
                         {"objectAntecedent", probe<kObject>},
                         {"possessiveAntecedent", probe<kPossessive>},
                         {"agreement", probe<kAgreement>},
                         {"nameCopy", probe<kName>},
                         {"twoBack", two_back},
                         {nullptr, nullptr}};
const AnswerPart kParts[] = {{nullptr, nullptr}};

int candidates(const int* ids, const std::uint8_t* groups, int query, int* out) {
  return groups[query] < kProbeKinds ? candidates_of(ids, query, Kind(groups[query]), out) : 0;
}

void fill(Mulberry32& rng, std::size_t i, const Batch& b) {
  int* ids = b.ids + i * kTokens;
  Record records[kTokens];
  const int count = next_sequence(rng, ids, records);
  int* targets = b.targets + i * kTokens;
  std::uint8_t* mask = b.mask + i * kTokens;
  std::uint8_t* groups = b.groups + i * kTokens;
  for (int t = 0; t < kTokens; ++t) {
    targets[t] = t + 1 < kTokens ? ids[t + 1] : 0;
    mask[t] = t + 1 < kTokens;
    groups[t] = kOther;
  }
  for (int r = 0; r < count; ++r)
    groups[records[r].query] = records[r].counted ? records[r].kind : kSamePronoun;
}

}  // namespace

int vocab() { return kVocab; }
const char* const* words() { return kWords; }

int word_id(const char* word) {
  for (int i = 0; i < kVocab; ++i)
    if (std::strcmp(kWords[i], word) == 0) return i;
  return -1;
}

int pronoun_class(int id) {
  if (kMale.has(id) || kMaleNames.has(id)) return 0;
  if (kFemale.has(id) || kFemaleNames.has(id)) return 1;
  if (kIt.has(id)) return 2;
  if (kPlurals.has(id)) return 3;
  return -1;
}

int pronoun(int grammatical_case, int c) {
  return kPronouns.begin + kPronounIndex[grammatical_case][c];
}

WordClass names() { return kNames; }

int next_sequence(Mulberry32& rng, int* ids, Record* records) {
  // Sentences are written whole into a buffer with room for the longest (18 tokens) past the
  // end; records whose answer is cut off are dropped.
  int buffer[kTokens + 32];
  Record all[kTokens];
  Writer w{buffer, 0, all, 0};
  while (w.n < kTokens) write_sentence(rng, w);
  for (int t = 0; t < kTokens; ++t) ids[t] = buffer[t];
  int kept = 0;
  for (int r = 0; r < w.count; ++r)
    if (all[r].query + 1 < kTokens) records[kept++] = all[r];
  return kept;
}

int antecedent_of(const int* ids, int query, Kind kind) {
  int a = 0, d = 0;
  return offsets(ids, query, kind, &a, &d) ? query - a : -1;
}

int distractor_of(const int* ids, int query, Kind kind) {
  int a = 0, d = 0;
  return offsets(ids, query, kind, &a, &d) && d >= 0 ? query - d : -1;
}

int candidates_of(const int* ids, int query, Kind kind, int* out) {
  int a = 0, d = 0;
  if (!offsets(ids, query, kind, &a, &d)) return 0;
  if (kind == kAgreement) return out[0] = kIs, out[1] = kAre, 2;
  if (kind == kName) {
    for (int i = 0; i < kNames.count; ++i) out[i] = kNames.begin + i;
    return kNames.count;
  }
  const int grammatical_case = kind == kSubject ? 0 : kind == kObject ? 1 : 2;
  const int right = pronoun_class(ids[query - a]), wrong = pronoun_class(ids[query - d]);
  if (right < 0 || wrong < 0 || right == wrong) return 0;
  out[0] = pronoun(grammatical_case, right);
  out[1] = pronoun(grammatical_case, wrong);
  return 2;
}

}  // namespace story

extern const Task kStoryTask{
    "story",
    "lecture-like English: predict every next word; pronouns, agreement and names need their "
    "antecedent",
    std::size_t(story::kVocab),
    story::kTokens,
    std::size_t(story::kVocab),
    layers::Readout::kEvery,
    story::kWords,
    story::kGroups,
    story::kProbes,
    story::kParts,
    story::fill,
    story::candidates,
    400};  // 2 layers of 4 heads of 16, attention-only: 400 x 4.6 M multiply-adds

}  // namespace headwise::tasks
