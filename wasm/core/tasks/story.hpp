// The lecture's own sentence as a task: a seeded generator of lecture-like English, next-token
// prediction on 64 tokens of whole sentences (the last one cut where the 64 end). Five templates,
// each with a word that only looking back can predict:
//   chase       "the X chased the Y , but SUBJ(X) could not catch OBJ(Y) ."
//   give        "the X gave the Y a Z . SUBJ(Y) thanked OBJ(X) ."
//   possessive  "the X who saw the Y lost POSS(X) Z ."
//   agreement   "the N1 near the N2 is|are ADJ ."        (N1's number, not N2's)
//   name        "NAME went to the PLACE . there NAME played with the Y . SUBJ(NAME) was very ADJ ."
// (the verbs, prepositions, places and adjectives are drawn from their word classes; the
// lecture's sentence is the chase template with "chased" and "catch").
//
// A record is a row whose next word only looking back predicts: its query (the position that
// predicts the word), the antecedent it needs, the distractor it must not take, and the candidate
// set its accuracy is scored over: the two nouns' pronouns (in the case asked), "is"/"are", or
// every name. A record whose two nouns take the same pronoun (or number) cannot tell a head that
// reads the right noun from one that reads the wrong one: its row is in group "same pronoun" and
// no probe counts it. X and Y (and N1, N2; NAME and Y) are drawn independently from the same
// pronoun classes, so a model that sees only the last few tokens (which may hold the distractor,
// never the antecedent) is right on half of the counted records (on 1 in 30 for a name).
//
// Draw order (mulberry32, one `below(n)` each): per sentence, the template (below(5)), then its
// open words left to right. A noun of X/Y: its pronoun class below(4) (he, she, it, they), then
// the word within the class; N1/N2: plural below(2), then a class below(3) for a singular, then
// the word; NAME: below(30) (15 male then 15 female); the Y of the name template: below(2) (male,
// female), then the word; every other open word: below(size of its class).
#pragma once

#include <cstdint>

#include "mulberry32.hpp"

namespace headwise::tasks::story {

constexpr int kTokens = 64;

// What a read row asks for (its loss group): the five probes, then the rest.
enum Kind : unsigned char {
  kSubject = 0,
  kObject = 1,
  kPossessive = 2,
  kAgreement = 3,
  kName = 4,
  kSamePronoun = 5,
  kOther = 6,
};
constexpr int kProbeKinds = 5;

enum Template : unsigned char {
  kChase,
  kGive,
  kPossessiveTemplate,
  kAgreementTemplate,
  kNameTemplate
};

struct Record {
  Kind kind;                          // kSubject..kName (counted or not)
  bool counted;                       // false: the two nouns take the same pronoun (or number)
  int query, antecedent, distractor;  // positions; distractor -1 for a name
  int answer;                         // the id at query + 1
};

// A word class: ids [begin, begin + count).
struct WordClass {
  int begin, count;
  bool has(int id) const { return id >= begin && id < begin + count; }
};

int vocab();
const char* const* words();
// The id of a word, or -1.
int word_id(const char* word);

// Pronoun classes of nouns: 0 he (male nouns and names), 1 she, 2 it (animals, things), 3 they
// (plurals); -1 for a word that is not a noun or a name.
int pronoun_class(int id);
// The pronoun of class c in a case (0 subject, 1 object, 2 possessive).
int pronoun(int grammatical_case, int c);
WordClass names();

// Writes the next sequence's kTokens ids; the records whose answer lies inside it (query + 1 <
// kTokens) into records (room for kTokens); returns how many.
int next_sequence(Mulberry32& rng, int* ids, Record* records);

// From the tokens alone: the antecedent (and distractor) of a probe of this kind whose query is
// `query`, or -1 where the tokens there are not that template.
int antecedent_of(const int* ids, int query, Kind kind);
int distractor_of(const int* ids, int query, Kind kind);
// The candidate ids of a counted probe row (from the tokens), into out (kMaxCandidates); 0 for
// another row.
int candidates_of(const int* ids, int query, Kind kind, int* out);

}  // namespace headwise::tasks::story
