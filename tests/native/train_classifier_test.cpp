// The task classifier and its training: the task generator, gradients of a whole batch against a
// double reference (a plain forward computing every position, differentiated by central
// differences), Adam against a hand-computed step, and bitwise repeatable runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "test_helpers.hpp"
#include "train/adam.hpp"
#include "train/classifier.hpp"
#include "train/task.hpp"
#include "train/trainer.hpp"

namespace headwise::train {
namespace {

using testing::all_close;
using Vec = std::vector<double>;

TEST(TrainTask, Mulberry32MatchesAnIndependentJsImplementation) {
  // Values printed by a JS mulberry32 (Math.imul, >>> 0) for seeds 12345 and 2^32 - 1.
  Mulberry32 r(12345);
  EXPECT_EQ(r.next(), 0.97972826776094735);
  EXPECT_EQ(r.next(), 0.30675226449966431);
  EXPECT_EQ(r.next(), 0.48420542152598500);
  EXPECT_EQ(Mulberry32(0xFFFFFFFFu).next(), 0.89642261411063373);
  EXPECT_EQ(held_out_seed(0), 0x5EED5EEDu);
}

TEST(TrainTask, SequencesFollowTheRules) {
  Mulberry32 r(7);
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
    EXPECT_EQ(target_class(w, Variant::kVerbNoun), 8 * (w[verb] - 8) + w[noun]);
    EXPECT_EQ(target_class(w, Variant::kVerb), w[verb] - 8);
  }
  const double total = 4000.0 * 11;
  EXPECT_NEAR(kinds[0] / total, 0.35, 0.02);  // rejection of noun-less or verb-less sequences
  EXPECT_NEAR(kinds[1] / total, 0.35, 0.02);  // shifts these by well under 1%
  EXPECT_NEAR(kinds[2] / total, 0.30, 0.02);
}

// The model in double with every position computed (full causal attention, MLP at all
// positions), reading the loss at position 11 only: mean cross-entropy over the batch.
double reference_loss(const ClassifierShape& s, const std::vector<Vec>& p, const int* words,
                      const int* targets, std::size_t B) {
  const std::size_t D = s.d_model, H = s.heads, hd = s.head_dim(), M = s.mlp, K = s.classes;
  const std::size_t T = kTokens;
  double total = 0;
  for (std::size_t b = 0; b < B; ++b) {
    std::vector<Vec> x(T, Vec(D)), q(T, Vec(D)), k(T, Vec(D)), v(T, Vec(D));
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t d = 0; d < D; ++d)
        x[t][d] = p[kTokenEmbedding][words[b * T + t] * D + d] + p[kPositionEmbedding][t * D + d];
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = 0; j < D; ++j) {
        q[t][j] = p[kBq][j], k[t][j] = p[kBk][j], v[t][j] = p[kBv][j];
        for (std::size_t i = 0; i < D; ++i) {
          q[t][j] += x[t][i] * p[kWq][i * D + j];
          k[t][j] += x[t][i] * p[kWk][i * D + j];
          v[t][j] += x[t][i] * p[kWv][i * D + j];
        }
      }
    std::vector<Vec> h2(T, Vec(D));
    for (std::size_t t = 0; t < T; ++t) {
      Vec cat(D, 0.0), h1(D), z(M);
      for (std::size_t h = 0; h < H; ++h) {
        Vec e(t + 1);
        double mx = -1e300, sum = 0;
        for (std::size_t j = 0; j <= t; ++j) {
          double dot = 0;
          for (std::size_t d = 0; d < hd; ++d) dot += q[t][h * hd + d] * k[j][h * hd + d];
          e[j] = dot / std::sqrt(double(hd));
          mx = std::max(mx, e[j]);
        }
        for (double& w : e) sum += (w = std::exp(w - mx));
        for (std::size_t j = 0; j <= t; ++j)
          for (std::size_t d = 0; d < hd; ++d) cat[h * hd + d] += e[j] / sum * v[j][h * hd + d];
      }
      for (std::size_t j = 0; j < D; ++j) {
        h1[j] = x[t][j] + p[kBout][j];
        for (std::size_t i = 0; i < D; ++i) h1[j] += cat[i] * p[kWout][i * D + j];
      }
      for (std::size_t j = 0; j < M; ++j) {
        z[j] = p[kB1][j];
        for (std::size_t i = 0; i < D; ++i) z[j] += h1[i] * p[kW1][i * M + j];
        z[j] = std::max(z[j], 0.0);
      }
      for (std::size_t j = 0; j < D; ++j) {
        h2[t][j] = h1[j] + p[kB2][j];
        for (std::size_t i = 0; i < M; ++i) h2[t][j] += z[i] * p[kW2][i * D + j];
      }
    }
    Vec logits(K);
    double mx = -1e300, sum = 0;
    for (std::size_t c = 0; c < K; ++c) {
      logits[c] = p[kBReadout][c];
      for (std::size_t i = 0; i < D; ++i) logits[c] += h2[T - 1][i] * p[kWReadout][i * K + c];
      mx = std::max(mx, logits[c]);
    }
    for (double l : logits) sum += std::exp(l - mx);
    total += std::log(sum) + mx - logits[targets[b]];
  }
  return total / double(B);
}

struct Batch {
  std::vector<int> words, targets;
};
Batch draw(std::uint32_t seed, std::size_t B, Variant variant) {
  Batch batch{std::vector<int>(B * kTokens), std::vector<int>(B)};
  Mulberry32 r(seed);
  for (std::size_t b = 0; b < B; ++b) {
    next_sequence(r, batch.words.data() + b * kTokens);
    batch.targets[b] = target_class(batch.words.data() + b * kTokens, variant);
  }
  return batch;
}

void check_gradients(const ClassifierShape& shape, std::size_t B, std::uint32_t seed) {
  Classifier model(shape, seed);
  const Batch batch = draw(seed, B, shape.classes == 8 ? Variant::kVerb : Variant::kVerbNoun);
  // Sharper attention than the init gives, so the softmax backward is exercised off its flat point.
  for (Param w : {kWq, kWk}) {
    float* values = model.tensor(w);
    for (std::size_t i = 0; i < model.size(w); ++i) values[i] *= 3.0f;
  }
  std::vector<Vec> p(kParamCount);
  for (int i = 0; i < kParamCount; ++i) {
    const float* v = model.tensor(static_cast<Param>(i));
    p[i].assign(v, v + model.size(static_cast<Param>(i)));
  }
  const BatchResult r = model.run(batch.words.data(), batch.targets.data(), B, true);
  const double ref = reference_loss(shape, p, batch.words.data(), batch.targets.data(), B);
  EXPECT_NEAR(r.loss, ref, 1e-5 * std::fabs(ref));
  for (int i = 0; i < kParamCount; ++i) {
    SCOPED_TRACE(classifier_row(static_cast<Param>(i)).name);
    Vec fd(p[i].size());
    for (std::size_t j = 0; j < p[i].size(); ++j) {
      const double keep = p[i][j], h = 1e-5;
      p[i][j] = keep + h;
      const double up = reference_loss(shape, p, batch.words.data(), batch.targets.data(), B);
      p[i][j] = keep - h;
      const double down = reference_loss(shape, p, batch.words.data(), batch.targets.data(), B);
      p[i][j] = keep;
      fd[j] = (up - down) / (2 * h);
    }
    // A ReLU kink within h of a weight would break central differences; at these sizes and
    // seeds none is (the float gradients agree to float rounding).
    EXPECT_TRUE(all_close(model.tensor(static_cast<Param>(i), Slot::kGradient), fd, 2e-6, 1e-4));
  }
}

TEST(TrainClassifier, GradientsOfAWholeBatchMatchADoubleReference) {
  check_gradients(ClassifierShape{6, 2, 5, 64}, 3, 11);
  check_gradients(ClassifierShape{9, 3, 7, 8}, 5, 12);    // widths off the SIMD width, 8 classes
  check_gradients(ClassifierShape{5, 1, 3, 64}, 1, 13);   // one head, batch 1
  check_gradients(ClassifierShape{8, 4, 10, 64}, 2, 14);  // head_dim 2
}

TEST(TrainClassifier, TableHasFourRowsPerTensor) {
  const ClassifierShape shape{6, 2, 5, 64};
  Classifier model(shape, 1);
  const Role value_roles[kParamCount] = {
      Role::kEmbedding, Role::kEmbedding, Role::kWeight, Role::kBias, Role::kWeight, Role::kBias,
      Role::kWeight,    Role::kBias,      Role::kWeight, Role::kBias, Role::kWeight, Role::kBias,
      Role::kWeight,    Role::kBias,      Role::kWeight, Role::kBias};
  std::size_t total = 0;
  for (int p = 0; p < kParamCount; ++p) {
    const Param param = static_cast<Param>(p);
    const TensorRow& value = classifier_row(param);
    EXPECT_EQ(value.role, value_roles[p]) << value.name;
    EXPECT_EQ(row_floats(value, model.dims()).value(), model.size(param)) << value.name;
    EXPECT_EQ(model.offset(param), total);
    total += model.size(param);
    const std::string name = value.name;
    EXPECT_EQ(classifier_row(param, Slot::kGradient).role, Role::kGradient);
    EXPECT_EQ(classifier_row(param, Slot::kGradient).name, name + ".grad");
    EXPECT_EQ(classifier_row(param, Slot::kAdamM).role, Role::kOptimizerState);
    EXPECT_EQ(classifier_row(param, Slot::kAdamV).name, name + ".adamV");
    for (int s = 0; s < kSlotCount; ++s) {
      EXPECT_EQ(classifier_table()[s * kParamCount + p].id, s * kParamCount + p);
    }
  }
  EXPECT_EQ(total, model.parameter_count());
  EXPECT_EQ(model.size(kTokenEmbedding), 21u * 6);
  EXPECT_EQ(model.size(kW1), 6u * 5);
  EXPECT_EQ(model.size(kBReadout), 64u);
  // Linear init within +-1/sqrt(fan_in) (w2's fan-in is the MLP width), embeddings unit variance.
  const float* w2 = model.tensor(kW2);
  const float bound = 1.0f / std::sqrt(5.0f);
  EXPECT_TRUE(std::all_of(w2, w2 + 30, [&](float v) { return std::fabs(v) <= bound; }));
  EXPECT_TRUE(
      std::any_of(w2, w2 + 30, [&](float v) { return std::fabs(v) > 0.8f / std::sqrt(6.0f); }));
  const float* tok = model.tensor(kTokenEmbedding);
  double sq = 0;
  for (int i = 0; i < kVocab * 6; ++i) sq += tok[i] * tok[i];
  EXPECT_NEAR(sq / (kVocab * 6), 1.0, 0.25);
  const float* grads = model.buffer(Slot::kGradient);
  EXPECT_TRUE(std::all_of(grads, grads + total, [](float v) { return v == 0.0f; }));
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
  o.d_model = 6, o.heads = 2, o.mlp = 5, o.batch = 4, o.seed = 21, o.eval_size = 16;
  o.adam.warmup = 0;
  std::unique_ptr<Trainer> t;
  ASSERT_TRUE(Trainer::create(o, &t).is_ok());
  Classifier shadow(ClassifierShape{6, 2, 5, 64}, 21);
  const Batch batch = draw(21, 4, Variant::kVerbNoun);  // the trainer's first batch
  const BatchResult r = shadow.run(batch.words.data(), batch.targets.data(), 4, true);
  const Evaluation e = t->step();
  EXPECT_EQ(e.loss, r.loss);
  const std::size_t n = shadow.parameter_count();
  std::vector<float> m(n, 0.0f), v(n, 0.0f);
  adam_step(o.adam, 1, n, shadow.buffer(Slot::kValue), shadow.buffer(Slot::kGradient), m.data(),
            v.data());
  EXPECT_EQ(0, std::memcmp(shadow.buffer(Slot::kValue), t->model().buffer(Slot::kValue), n * 4));
}

TEST(TrainTrainer, ARunIsBitwiseRepeatableForASeed) {
  TrainerOptions o;
  o.seed = 5, o.eval_size = 256;
  std::unique_ptr<Trainer> a, b, c;
  ASSERT_TRUE(Trainer::create(o, &a).is_ok());
  ASSERT_TRUE(Trainer::create(o, &b).is_ok());
  o.seed = 6;
  ASSERT_TRUE(Trainer::create(o, &c).is_ok());
  for (int i = 0; i < 150; ++i) {
    const Evaluation ea = a->step(), eb = b->step();
    ASSERT_EQ(ea.loss, eb.loss) << "step " << i;
    c->step();
  }
  const std::size_t n = a->model().parameter_count();
  EXPECT_EQ(0,
            std::memcmp(a->model().buffer(Slot::kValue), b->model().buffer(Slot::kValue), n * 4));
  EXPECT_NE(0,
            std::memcmp(a->model().buffer(Slot::kValue), c->model().buffer(Slot::kValue), n * 4));
  EXPECT_EQ(a->evaluate().accuracy, b->evaluate().accuracy);
}

TEST(TrainTrainer, LearnsTheVerbControlWithOneHead) {
  TrainerOptions o;
  o.heads = 1, o.variant = Variant::kVerb, o.seed = 1, o.eval_size = 512;
  std::unique_ptr<Trainer> t;
  ASSERT_TRUE(Trainer::create(o, &t).is_ok());
  const double before = t->evaluate().accuracy;
  for (int i = 0; i < 1000; ++i) t->step();
  EXPECT_LT(before, 0.3);
  EXPECT_GT(t->evaluate().accuracy, 0.95);
}

TEST(TrainTrainer, RefusesBadOptions) {
  std::unique_ptr<Trainer> t;
  TrainerOptions o;
  o.heads = 3;  // 32 is not a multiple of 3
  EXPECT_NE(Trainer::create(o, &t).message().find("multiple of heads"), std::string::npos);
  o = TrainerOptions{};
  o.batch = 0;
  EXPECT_FALSE(Trainer::create(o, &t).is_ok());
  o = TrainerOptions{};
  o.adam.learning_rate = -1;
  EXPECT_FALSE(Trainer::create(o, &t).is_ok());
  o = TrainerOptions{};
  o.d_model = 1024, o.heads = 1, o.mlp = 4096, o.batch = 4096;
  EXPECT_NE(Trainer::create(o, &t).message().find("limit of 256 MiB"), std::string::npos);
  EXPECT_EQ(t, nullptr);
}

}  // namespace
}  // namespace headwise::train
