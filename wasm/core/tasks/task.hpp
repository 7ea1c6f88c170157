// A task is data: a seeded generator that fills a batch of (tokens, targets, loss mask, groups),
// with its vocabulary, sequence length, classes and where the readout reads as its own values.
// Adding a task is one file defining its Task and one line in registry.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "layers/model_spec.hpp"
#include "mulberry32.hpp"

namespace headwise::tasks {

// One batch of n sequences: ids (n, T); per read position (n, Tq): targets, mask, groups.
struct Batch {
  int* ids;
  int* targets;
  std::uint8_t* mask;
  std::uint8_t* groups;
};

// A probe: for a query position of a sequence, the key position whose attention weight is worth
// reporting per head ("how much does head h look at the latest verb from '?'"); -1: this query
// is not counted. ids: the sequence's T ids; groups: its read rows' loss groups (Tq bytes, row
// = query - (T - Tq)); query: a position in [0, T).
using ProbeFn = int (*)(const int* ids, const std::uint8_t* groups, int query);

struct Probe {
  const char* name;
  ProbeFn position;
};

// A part of an answer a class is made of ("the verb" of a verb-and-noun class): a held-out
// answer can get one part right and another wrong, which is what one head cannot avoid.
struct AnswerPart {
  const char* name;
  int (*of)(int cls);
};

struct Task {
  const char* name;
  const char* about;
  std::size_t vocab, tokens, classes;
  layers::Readout readout;
  // Names of the vocabulary's ids, in id order (vocab of them).
  const char* const* words;
  // Names of the loss groups (null-terminated; a task with one group names it).
  const char* const* groups;
  // Probes, null-terminated (may be empty).
  const Probe* probes;
  // Parts of an answer, null-terminated (may be empty).
  const AnswerPart* parts;
  // Writes sequence i of a batch (ids at ids + i * tokens, its read rows likewise).
  void (*fill)(Mulberry32& rng, std::size_t i, const Batch& batch);
  // Optional: the classes a read row's answer is scored among (its candidate set: "he" or "it"
  // where the antecedent and the distractor take those), written to out (room for
  // kMaxCandidates); 0 for a row no probe scores. Same arguments as a ProbeFn.
  int (*candidates)(const int* ids, const std::uint8_t* groups, int query, int* out) = nullptr;
  // Held-out sequences a trainer evaluates when its options leave evalSize at 0: as many as the
  // task's usual models evaluate within one call's multiply-add limit (a task of 64-token
  // streams read at every position takes fewer than one read once per sequence).
  double eval_size = 2048;
};
constexpr int kMaxCandidates = 32;

// Registered tasks, null-terminated, and by name.
const Task* const* task_list();
const Task* find_task(const char* name);

// Read positions per sequence (Tq).
inline std::size_t read_tokens(const Task& t) {
  return t.readout == layers::Readout::kLast ? 1 : t.tokens;
}

}  // namespace headwise::tasks
