// The trainer and its parts: the verb-and-noun task's generator, Adam against a hand-computed
// step, a step as Adam on the batch gradient of the same stack, bitwise repeatable runs, the
// refusals (options, memory budget, work per call) and a diverged step that keeps the weights.
// (Every layer's gradients: layers_stack_test.cpp and layers_attention_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tasks/task.hpp"
#include "tasks/verb_noun.hpp"
#include "test_helpers.hpp"
#include "train/adam.hpp"
#include "train/trainer.hpp"

namespace headwise::train {
namespace {

using namespace headwise::tasks::verb_noun;
using layers::Slot;
using testing::all_close;
constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();

TEST(TrainTask, Mulberry32MatchesAnIndependentJsImplementation) {
  // Values printed by a JS mulberry32 (Math.imul, >>> 0) for seeds 12345 and 2^32 - 1.
  tasks::Mulberry32 r(12345);
  EXPECT_EQ(r.next(), 0.97972826776094735);
  EXPECT_EQ(r.next(), 0.30675226449966431);
  EXPECT_EQ(r.next(), 0.48420542152598500);
  EXPECT_EQ(tasks::Mulberry32(0xFFFFFFFFu).next(), 0.89642261411063373);
  EXPECT_EQ(tasks::held_out_seed(0), 0x5EED5EEDu);
}

TEST(TrainTask, SequencesFollowTheRules) {
  tasks::Mulberry32 r(7);
  int kinds[3] = {0, 0, 0};
  for (int n = 0; n < 4000; ++n) {
    int w[kTokens];
    next_sequence(r, w);
    ASSERT_EQ(w[kTokens - 1], kQuery);
    const int verb = latest_of_kind(w, kVerbBase), noun = latest_of_kind(w, kNounBase);
    ASSERT_GE(verb, 0);
    ASSERT_GE(noun, 0);
    for (int i = 0; i < kTokens - 1; ++i) {
      ASSERT_TRUE(w[i] >= 0 && w[i] < kQuery);
      ++kinds[w[i] < 8 ? 0 : w[i] < 16 ? 1 : 2];
      if (i > verb) {
        EXPECT_FALSE(w[i] >= 8 && w[i] < 16);
      }
      if (i > noun) {
        EXPECT_FALSE(w[i] < 8);
      }
    }
    EXPECT_EQ(verb_noun_class(w), 8 * (w[verb] - 8) + w[noun]);
    EXPECT_EQ(verb_class(w), w[verb] - 8);
  }
  const double total = 4000.0 * 11;
  EXPECT_NEAR(kinds[0] / total, 0.35, 0.02);  // rejection of noun-less or verb-less sequences
  EXPECT_NEAR(kinds[1] / total, 0.35, 0.02);  // shifts these by well under 1%
  EXPECT_NEAR(kinds[2] / total, 0.30, 0.02);
}

TEST(TrainTask, RegisteredTasksDescribeThemselves) {
  const tasks::Task* t = tasks::find_task("verb-noun");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->vocab, 21u);
  EXPECT_EQ(t->tokens, 12u);
  EXPECT_EQ(t->classes, 64u);
  EXPECT_STREQ(t->words[20], "?");
  EXPECT_EQ(tasks::find_task("verb")->classes, 8u);
  EXPECT_EQ(tasks::find_task("nonsense"), nullptr);
}

TEST(TrainAdam, TwoStepsByHand) {
  // lr 0.1, warm-up 4 (lr_1 = 0.025, lr_2 = 0.05), betas 0.9/0.999, eps 1e-8, from p = 1:
  // step 1, g = (0.5, -2, 0): m_hat = g, v_hat = g^2, so p -= 0.025 g / (|g| + 1e-8).
  // step 2, g = (0.5, 1, 3): m = (0.095, -0.08, 0.3), v = (4.9975e-4, 4.996e-3, 9e-3),
  //   corrections 1 - 0.9^2 = 0.19 and 1 - 0.999^2 = 0.001999; values from a Python float64 run.
  AdamConfig c;
  c.learning_rate = 0.1f;
  c.warmup = 4;
  std::vector<float> p(3, 1.0f), m(3, 0.0f), v(3, 0.0f);
  const float g1[3] = {0.5f, -2.0f, 0.0f}, g2[3] = {0.5f, 1.0f, 3.0f};
  adam_step(c, 1, 3, p.data(), g1, m.data(), v.data());
  EXPECT_TRUE(all_close(p.data(), {0.9750000005, 1.024999999875, 1.0}, 1e-7, 0));
  adam_step(c, 2, 3, p.data(), g2, m.data(), v.data());
  EXPECT_TRUE(
      all_close(p.data(), {0.9250000015000004, 1.0383168517737842, 0.9627931589970018}, 2e-7, 0));
  EXPECT_FLOAT_EQ(warmup_rate(c, 1), 0.025f);
  EXPECT_FLOAT_EQ(warmup_rate(c, 4), 0.1f);
  EXPECT_FLOAT_EQ(warmup_rate(c, 400), 0.1f);
  // Decoupled weight decay: with g = 0 and fresh moments, p shrinks by lr * wd * p only.
  c.weight_decay = 0.5f;
  c.warmup = 0;
  std::vector<float> q(1, 2.0f), mq(1, 0.0f), vq(1, 0.0f);
  const float zero = 0.0f;
  adam_step(c, 1, 1, q.data(), &zero, mq.data(), vq.data());
  EXPECT_FLOAT_EQ(q[0], 2.0f * (1.0f - 0.1f * 0.5f));
}

TEST(TrainTrainer, AStepIsAdamOnTheBatchGradient) {
  TrainerOptions o;
  o.d_model = 6, o.heads = 2, o.mlp = 5, o.batch = 4, o.seed = 21, o.eval_size = 16, o.warmup = 0;
  std::unique_ptr<Trainer> t;
  ASSERT_TRUE(Trainer::create(o, kNoLimit, &t).is_ok());
  std::unique_ptr<layers::Stack> shadow;
  ASSERT_TRUE(layers::Stack::create(t->spec(), 4, 21, &shadow).is_ok());
  // The trainer's first batch: four sequences of the task from a generator seeded 21.
  std::vector<int> ids(4 * kTokens), targets(4);
  std::vector<std::uint8_t> mask(4), groups(4);
  tasks::Mulberry32 rng(21);
  for (std::size_t i = 0; i < 4; ++i)
    t->task().fill(rng, i, tasks::Batch{ids.data(), targets.data(), mask.data(), groups.data()});
  const layers::LossSums r =
      shadow->run(ids.data(), 4, layers::Targets{targets.data(), mask.data(), groups.data()}, true);
  const Evaluation e = t->step();
  EXPECT_EQ(e.loss, r.loss);
  const std::size_t n = shadow->parameter_count();
  std::vector<float> m(n, 0.0f), v(n, 0.0f);
  AdamConfig adam;
  adam.learning_rate = 3e-3f, adam.warmup = 0;
  adam_step(adam, 1, n, shadow->buffer(Slot::kValue), shadow->buffer(Slot::kGradient), m.data(),
            v.data());
  EXPECT_EQ(0, std::memcmp(shadow->buffer(Slot::kValue), t->model().buffer(Slot::kValue), n * 4));
}

// The data-parallel pieces: slices of a batch, each drawn by its own trainer set to the same
// batch state, give gradients whose sum is the whole batch's within 1e-6 + 1e-5 |g| (the float
// sum's order differs); one slice [0, batch) then Adam is step() bit for bit.
TEST(TrainTrainer, SliceGradientsSumToTheBatchGradient) {
  for (const char* task : {"induction", "verb-noun"}) {
    TrainerOptions o;
    o.task = task, o.seed = 4, o.eval_size = 16, o.batch = 7, o.layers = 2;
    if (std::string(task) == "induction") o.d_model = 32, o.heads = 4, o.mlp = 0;
    std::unique_ptr<Trainer> whole, a, b, c;
    ASSERT_TRUE(Trainer::create(o, kNoLimit, &whole).is_ok());
    ASSERT_TRUE(Trainer::create(o, kNoLimit, &a).is_ok());
    ASSERT_TRUE(Trainer::create(o, kNoLimit, &b).is_ok());
    ASSERT_TRUE(Trainer::create(o, kNoLimit, &c).is_ok());
    for (int i = 0; i < 3; ++i) whole->step();  // not the first batch: the state has moved
    for (Trainer* t : {a.get(), b.get(), c.get()}) {
      t->set_batch_state(whole->batch_state());
      std::memcpy(t->model().buffer(Slot::kValue), whole->model().buffer(Slot::kValue),
                  whole->model().parameter_count() * 4);
      t->draw_batch();
    }
    const std::uint32_t after = a->batch_state();
    whole->draw_batch();
    EXPECT_EQ(whole->batch_state(), after);
    const layers::LossSums all = whole->batch_gradient(0, 7);
    const layers::LossSums ra = a->batch_gradient(0, 3), rb = b->batch_gradient(3, 5),
                           rc = c->batch_gradient(5, 7);
    EXPECT_EQ(ra.counted + rb.counted + rc.counted, all.counted) << task;
    EXPECT_EQ(ra.correct + rb.correct + rc.correct, all.correct) << task;
    EXPECT_NEAR(ra.loss_sum + rb.loss_sum + rc.loss_sum, all.loss_sum, 1e-9 * all.loss_sum);
    const std::size_t n = whole->model().parameter_count();
    const float *ga = a->model().buffer(Slot::kGradient), *gb = b->model().buffer(Slot::kGradient),
                *gc = c->model().buffer(Slot::kGradient),
                *g = whole->model().buffer(Slot::kGradient);
    double worst = 0, largest = 0;
    std::size_t outside = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double sum = double(ga[i]) + gb[i] + gc[i], d = std::abs(sum - g[i]);
      worst = std::max(worst, d);
      largest = std::max(largest, double(std::abs(g[i])));
      outside += d > 1e-6 + 1e-5 * std::abs(g[i]);
    }
    EXPECT_EQ(outside, 0u) << task << ": max |diff| " << worst << ", max |g| " << largest;
    EXPECT_GT(largest, 1e-3) << task;  // a real gradient, not zeros
    // One slice [0, batch) and apply_gradient is step(), bit for bit.
    std::unique_ptr<Trainer> p, q;
    ASSERT_TRUE(Trainer::create(o, kNoLimit, &p).is_ok());
    ASSERT_TRUE(Trainer::create(o, kNoLimit, &q).is_ok());
    for (int i = 0; i < 5; ++i) {
      const Evaluation e = p->step();
      q->draw_batch();
      const layers::LossSums r = q->batch_gradient(0, 7);
      ASSERT_EQ(r.loss, e.loss);
      ASSERT_TRUE(q->apply_gradient(r.loss));
    }
    EXPECT_EQ(p->steps(), q->steps());
    EXPECT_EQ(0,
              std::memcmp(p->model().buffer(Slot::kValue), q->model().buffer(Slot::kValue), n * 4));
    EXPECT_EQ(0,
              std::memcmp(p->model().buffer(Slot::kAdamV), q->model().buffer(Slot::kAdamV), n * 4));
    // A gradient that is not finite changes nothing and counts as diverged.
    std::vector<float> before(q->model().buffer(Slot::kValue), q->model().buffer(Slot::kValue) + n);
    q->model().buffer(Slot::kGradient)[n / 2] = std::numeric_limits<float>::infinity();
    EXPECT_FALSE(q->apply_gradient(1.0));
    EXPECT_EQ(q->diverged_steps(), 1);
    EXPECT_EQ(0, std::memcmp(before.data(), q->model().buffer(Slot::kValue), n * 4));
  }
}

TEST(TrainTrainer, ARunIsBitwiseRepeatableForASeed) {
  for (const char* positions : {"learned", "sinusoidal", "none"}) {
    TrainerOptions o;
    o.seed = 5, o.eval_size = 256, o.positions = positions, o.layers = 2, o.layer_norm = true;
    std::unique_ptr<Trainer> a, b, c;
    ASSERT_TRUE(Trainer::create(o, kNoLimit, &a).is_ok());
    ASSERT_TRUE(Trainer::create(o, kNoLimit, &b).is_ok());
    o.seed = 6;
    ASSERT_TRUE(Trainer::create(o, kNoLimit, &c).is_ok());
    for (int i = 0; i < 60; ++i) {
      const Evaluation ea = a->step(), eb = b->step();
      ASSERT_EQ(ea.loss, eb.loss) << positions << " step " << i;
      c->step();
    }
    const std::size_t n = a->model().parameter_count();
    EXPECT_EQ(0,
              std::memcmp(a->model().buffer(Slot::kValue), b->model().buffer(Slot::kValue), n * 4));
    EXPECT_NE(0,
              std::memcmp(a->model().buffer(Slot::kValue), c->model().buffer(Slot::kValue), n * 4));
    EXPECT_EQ(a->evaluate().accuracy, b->evaluate().accuracy);
  }
}

TEST(TrainTrainer, LearnsTheVerbControlWithOneHead) {
  TrainerOptions o;
  o.heads = 1, o.task = "verb", o.seed = 1, o.eval_size = 512;
  std::unique_ptr<Trainer> t;
  ASSERT_TRUE(Trainer::create(o, kNoLimit, &t).is_ok());
  const double before = t->evaluate().accuracy;
  for (int i = 0; i < 1000; ++i) t->step();
  EXPECT_LT(before, 0.3);
  EXPECT_GT(t->evaluate().accuracy, 0.95);
  const ProbeShares s = t->probe_shares();
  ASSERT_EQ(s.shares.size(), 2u);  // verb, noun
  EXPECT_GT(s.shares[0][0], 0.5);  // the one head looks at the latest verb
}

TEST(TrainTrainer, AnswerPartsCountTheRightVerbAndTheRightNounApart) {
  TrainerOptions o;
  o.heads = 1, o.seed = 3, o.eval_size = 512;
  std::unique_ptr<Trainer> t;
  ASSERT_TRUE(Trainer::create(o, kNoLimit, &t).is_ok());
  for (int i = 0; i < 600; ++i) t->step();
  const Evaluation e = t->evaluate();
  ASSERT_EQ(e.parts.size(), 2u);
  // An answer right in both parts is right: each part's share is at least the accuracy, and the
  // two cannot both be right less often than the accuracy implies.
  EXPECT_GE(e.parts[0], e.accuracy);
  EXPECT_GE(e.parts[1], e.accuracy);
  EXPECT_LE(e.accuracy, std::min(e.parts[0], e.parts[1]));
  EXPECT_GE(e.accuracy, e.parts[0] + e.parts[1] - 1.0 - 1e-12);
  EXPECT_GT(e.parts[0], 0.5);            // well above chance (1/8) after 600 steps
  EXPECT_TRUE(t->step().parts.empty());  // a training step does not count them
}

TEST(TrainTrainer, TheTableNamesEveryParameterInBufferOrder) {
  TrainerOptions o;
  o.layers = 2, o.layer_norm = true;
  std::unique_ptr<Trainer> t;
  ASSERT_TRUE(Trainer::create(o, kNoLimit, &t).is_ok());
  std::vector<std::string> names;
  std::uint64_t offset = 0;
  for (const layers::TableEntry& e : t->model().table().parameters) {
    names.push_back(e.name);
    EXPECT_EQ(e.offset, offset) << e.name;
    offset += e.size;
  }
  EXPECT_EQ(offset, t->model().parameter_count());
  EXPECT_EQ(names.front(), "tokenEmbedding");
  EXPECT_EQ(names[1], "positionEmbedding");
  EXPECT_EQ(names[2], "blocks.0.ln1.gain");
  EXPECT_NE(std::find(names.begin(), names.end(), "blocks.1.w2"), names.end());
  EXPECT_EQ(names.back(), "bReadout");
  // LayerNorm starts as the identity; linear init within +-1/sqrt(fan_in); embeddings variance 1.
  for (const layers::TableEntry& e : t->model().table().parameters) {
    const float* p = t->model().buffer(Slot::kValue) + e.offset;
    if (e.row->role == Role::kNormGain) {
      EXPECT_TRUE(std::all_of(p, p + e.size, [](float v) { return v == 1.0f; }));
    }
    if (e.row->role == Role::kWeight) {
      const float bound = 1.0f / std::sqrt(float(e.dims[int(e.row->fan_in)]));
      EXPECT_TRUE(std::all_of(p, p + e.size, [&](float v) { return std::fabs(v) <= bound; }))
          << e.name;
    }
  }
}

TEST(TrainTrainer, RefusesBadOptionsAndBudgets) {
  std::unique_ptr<Trainer> t;
  TrainerOptions o;
  o.heads = 3;  // 32 is not a multiple of 3: the layer's rule and words
  EXPECT_EQ(Trainer::create(o, kNoLimit, &t).message(),
            "width 32 is not divisible by 3 heads (heads x head_dim must equal width)");
  o = TrainerOptions{};
  o.batch = 0;
  EXPECT_EQ(Trainer::create(o, kNoLimit, &t).message(),
            "batch must be a whole number between 1 and 4096, got 0");
  o = TrainerOptions{};
  o.learning_rate = -1;
  EXPECT_FALSE(Trainer::create(o, kNoLimit, &t).is_ok());
  o = TrainerOptions{};
  o.positions = "rotary";
  EXPECT_NE(Trainer::create(o, kNoLimit, &t).message().find("positions must be one of"),
            std::string::npos);
  o = TrainerOptions{};
  o.d_model = 1024, o.heads = 1, o.mlp = 4096, o.batch = 4096;
  EXPECT_NE(
      Trainer::create(o, kNoLimit, &t).message().find("more than the memory budget of 256.0 MB"),
      std::string::npos);
  // The budget counts what is used: a trainer fits a budget of exactly the bytes it plans.
  o = TrainerOptions{};
  std::uint64_t bytes = 0;
  ASSERT_TRUE(Trainer::plan(o, &bytes).is_ok());
  o.memory_budget = double(bytes - 1);
  EXPECT_FALSE(Trainer::create(o, kNoLimit, &t).is_ok());
  o.memory_budget = double(bytes);
  EXPECT_TRUE(Trainer::create(o, kNoLimit, &t).is_ok());
  // The module's address space caps the budget, and says so.
  o = TrainerOptions{};
  EXPECT_NE(Trainer::create(o, 1 << 20, &t).message().find("more than the module can ever hold"),
            std::string::npos);
  // One evaluation's work is within one call's limit, or the trainer is refused at creation.
  o = TrainerOptions{};
  o.d_model = 1024, o.heads = 1, o.mlp = 4096, o.eval_size = 65536, o.memory_budget = 4e9;
  EXPECT_NE(Trainer::create(o, kNoLimit, &t).message().find("more than one call's limit"),
            std::string::npos);
}

// evalSize left at 0 is the task's own (Task::eval_size): every task's default trainer evaluates
// within one call's limit, and the story and induction tasks' 2-layer, 4-head models of width 64
// too; the story task's model with 2048 sequences asked for is refused.
TEST(TrainTrainer, EvalSizeLeftAtZeroIsTheTasksOwnAndFitsOneCall) {
  std::unique_ptr<Trainer> t;
  for (const tasks::Task* const* task = tasks::task_list(); *task; ++task) {
    TrainerOptions o;
    o.task = (*task)->name;
    ASSERT_EQ(o.eval_size, 0);
    const Status s = Trainer::create(o, kNoLimit, &t);
    ASSERT_TRUE(s.is_ok()) << o.task << ": " << s.message();
    EXPECT_EQ(t->options().eval_size, (*task)->eval_size) << o.task;
    EXPECT_EQ(with_task_defaults(o, **task).eval_size, (*task)->eval_size);
    EXPECT_LE(t->evaluation_multiply_adds(), kMaxMultiplyAddsPerCall) << o.task;
  }
  EXPECT_EQ(tasks::find_task("verb-noun")->eval_size, 2048);
  EXPECT_EQ(tasks::find_task("story")->eval_size, 400);
  EXPECT_EQ(tasks::find_task("induction")->eval_size, 512);
  for (const char* name : {"story", "induction"}) {
    TrainerOptions o;
    o.task = name, o.layers = 2, o.heads = 4, o.d_model = 64, o.mlp = 0;
    ASSERT_TRUE(Trainer::create(o, kNoLimit, &t).is_ok()) << name;
    EXPECT_LE(t->evaluation_multiply_adds(), kMaxMultiplyAddsPerCall) << name;
  }
  TrainerOptions o;
  o.task = "story", o.eval_size = 2048;
  EXPECT_NE(Trainer::create(o, kNoLimit, &t).message().find("choose a smaller evalSize"),
            std::string::npos);
  o.eval_size = 7;  // given: kept
  ASSERT_TRUE(Trainer::create(o, kNoLimit, &t).is_ok());
  EXPECT_EQ(t->options().eval_size, 7);
}

TEST(TrainTrainer, ADivergedStepKeepsTheWeights) {
  TrainerOptions o;
  o.eval_size = 8;
  std::unique_ptr<Trainer> t;
  ASSERT_TRUE(Trainer::create(o, kNoLimit, &t).is_ok());
  float* w = t->model().buffer(Slot::kValue);
  const std::size_t n = t->model().parameter_count();
  std::fill_n(w, n, 1048576.0f);  // 2^20 everywhere: the logits overflow, the loss is not finite
  std::vector<float> before(w, w + n);
  const Evaluation e = t->step();
  EXPECT_TRUE(e.diverged);
  EXPECT_EQ(t->steps(), 0);
  EXPECT_EQ(t->diverged_steps(), 1);
  EXPECT_EQ(0, std::memcmp(before.data(), w, n * 4));
}

}  // namespace
}  // namespace headwise::train
