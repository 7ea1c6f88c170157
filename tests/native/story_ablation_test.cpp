// Ablation (a head's context zeroed before W_out) against its plain equivalent, W_out's rows of
// that head set to zero; and the story task's accuracy over candidate sets against a recount
// from each held-out sequence's logits.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "tasks/story.hpp"
#include "train/trainer.hpp"

namespace headwise::train {
namespace {

constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();

std::unique_ptr<Trainer> small_story_model() {
  TrainerOptions o;
  o.task = "story";
  o.layers = 2;
  o.heads = 2;
  o.d_model = 16;
  o.mlp = 0;
  o.eval_size = 48;
  o.batch = 8;
  o.seed = 3;
  std::unique_ptr<Trainer> t;
  EXPECT_TRUE(Trainer::create(o, kNoLimit, &t).is_ok());
  for (int i = 0; i < 30; ++i) t->step();
  return t;
}

TEST(StoryAblation, ZeroingAHeadIsZeroingItsRowsOfWOut) {
  std::unique_ptr<Trainer> t = small_story_model();
  const Evaluation before = t->evaluate();
  layers::Stack& m = t->model();
  float* values = m.buffer(layers::Slot::kValue);
  const std::vector<float> saved(values, values + m.parameter_count());
  for (std::size_t layer = 0; layer < 2; ++layer) {
    for (std::size_t head = 0; head < 2; ++head) {
      Evaluation ablated;
      ASSERT_TRUE(t->evaluate_ablated({{layer, head}}, &ablated).is_ok());
      // The same model with W_out's rows head*hd..(head+1)*hd of this block set to zero.
      for (const layers::TableEntry& e : m.table().parameters) {
        if (e.part != layers::Part::kBlock || e.layer != int(layer)) continue;
        if (e.name.find("wOut") == std::string::npos) continue;
        const std::size_t hd = 8, D = 16;
        std::fill_n(values + e.offset + head * hd * D, hd * D, 0.0f);
      }
      const Evaluation plain = t->evaluate();
      std::copy(saved.begin(), saved.end(), values);
      EXPECT_EQ(ablated.loss, plain.loss) << layer << " " << head;
      for (std::size_t g = 0; g < plain.groups.size(); ++g) {
        EXPECT_EQ(ablated.groups[g].accuracy, plain.groups[g].accuracy);
        EXPECT_EQ(ablated.groups[g].candidate_accuracy, plain.groups[g].candidate_accuracy);
      }
      EXPECT_NE(ablated.loss, before.loss);
    }
  }
  // The mask does not outlive the call; a head out of range is refused and changes nothing.
  EXPECT_EQ(t->evaluate().loss, before.loss);
  Evaluation e;
  const Status s = t->evaluate_ablated({{0, 0}, {2, 0}}, &e);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("no head 0 in block 2"), std::string::npos) << s.message();
  EXPECT_EQ(t->evaluate().loss, before.loss);
}

TEST(StoryAblation, CandidateAccuracyIsARecountFromTheLogits) {
  std::unique_ptr<Trainer> t = small_story_model();
  const Evaluation e = t->evaluate();
  const tasks::Task& task = t->task();
  const std::size_t T = task.tokens, K = task.classes;
  std::vector<double> scored(e.groups.size(), 0), right(e.groups.size(), 0);
  std::vector<int> ids(T), groups(T);
  for (std::size_t i = 0; i < 48; ++i) {
    t->held_out(i, ids.data(), groups.data());
    std::vector<std::uint8_t> g(T);
    for (std::size_t r = 0; r < T; ++r) g[r] = std::uint8_t(groups[r] < 0 ? 6 : groups[r]);
    t->run_one(ids.data());
    const float* logits = t->model().logits();
    for (std::size_t q = 0; q + 1 < T; ++q) {
      int c[tasks::kMaxCandidates];
      const int n = task.candidates(ids.data(), g.data(), int(q), c);
      if (!n) continue;
      double best = -1e300;
      int pick = -1;
      for (int j = 0; j < n; ++j) {
        const double v = logits[q * K + std::size_t(c[j])];
        if (v > best) best = v, pick = c[j];
      }
      scored[g[q]] += 1;
      right[g[q]] += pick == ids[q + 1];
    }
  }
  for (std::size_t k = 0; k < std::size_t(tasks::story::kProbeKinds); ++k) {
    ASSERT_GT(scored[k], 0) << k;
    EXPECT_EQ(double(e.groups[k].candidate_rows), scored[k]);
    EXPECT_NEAR(e.groups[k].candidate_accuracy, right[k] / scored[k], 1e-12) << task.groups[k];
  }
  for (std::size_t k = std::size_t(tasks::story::kProbeKinds); k < e.groups.size(); ++k)
    EXPECT_EQ(e.groups[k].candidate_rows, 0u);
}

}  // namespace
}  // namespace headwise::train
