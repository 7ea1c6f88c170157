// The order task: both answers come from sentences with the same words, so only order tells.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "tasks/task.hpp"

namespace headwise::tasks {
namespace {

TEST(OrderTask, BothAnswersHoldTheSameWordsAndOnlyOrderDecides) {
  const Task* task = find_task("order");
  ASSERT_NE(task, nullptr);
  ASSERT_EQ(task->classes, 2u);
  const std::size_t n = 4000, T = task->tokens;
  std::vector<int> ids(n * T), targets(n);
  std::vector<std::uint8_t> mask(n), groups(n);
  Mulberry32 rng(7);
  const Batch batch{ids.data(), targets.data(), mask.data(), groups.data()};
  for (std::size_t i = 0; i < n; ++i) task->fill(rng, i, batch);
  // Per bag of content words (subject and predicate, sorted), how often each answer occurs.
  std::map<std::pair<int, int>, std::array<int, 2>> answers;
  int trues = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int* s = ids.data() + i * T;
    const int ask = int(T) - 1;  // the probes are counted from "?"
    const int subject = task->probes[0].position(s, nullptr, ask);
    const int predicate = task->probes[1].position(s, nullptr, ask);
    EXPECT_EQ(task->probes[0].position(s, nullptr, ask - 1), -1);
    ASSERT_GE(subject, 1);
    EXPECT_EQ(std::string(task->words[s[subject - 1]]), "all");
    EXPECT_EQ(std::string(task->words[s[subject + 1]]), "are");
    EXPECT_EQ(std::string(task->words[s[T - 1]]), "?");
    const std::string subject_word = task->words[s[subject]];
    const bool kind_first = subject_word != "animals" && subject_word != "plants";
    EXPECT_EQ(targets[i], kind_first ? 1 : 0) << subject_word;
    const int a = std::min(s[subject], s[predicate]), b = std::max(s[subject], s[predicate]);
    answers[{a, b}][targets[i]] += 1;
    trues += targets[i];
  }
  EXPECT_EQ(answers.size(), 8u);  // each kind with its own category, nothing else
  for (const auto& [bag, count] : answers) {
    EXPECT_GT(count[0], 150) << bag.first;  // both orders of every bag occur, about equally
    EXPECT_GT(count[1], 150) << bag.first;
  }
  EXPECT_NEAR(trues / double(n), 0.5, 0.03);
}

}  // namespace
}  // namespace headwise::tasks
