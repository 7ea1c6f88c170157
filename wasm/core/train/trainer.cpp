#include "trainer.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace headwise::train {

namespace {
constexpr std::size_t kEvalChunk = 256;
constexpr double kMaxFloats = 64.0 * 1048576;  // 256 MiB
}  // namespace

Status Trainer::create(const TrainerOptions& o, std::unique_ptr<Trainer>* out) {
  ClassifierShape shape{o.d_model, o.heads, o.mlp,
                        static_cast<std::size_t>(class_count(o.variant))};
  const Status s = validate_shape(shape);
  if (!s.is_ok()) return s;
  if (o.batch < 1 || o.batch > 4096) return Status::error("batch must be between 1 and 4096");
  if (o.eval_size < 1 || o.eval_size > 65536) {
    return Status::error("evalSize must be between 1 and 65536");
  }
  if (!(o.adam.learning_rate > 0.0f) || !std::isfinite(o.adam.learning_rate)) {
    return Status::error("learningRate must be a positive finite number");
  }
  if (o.adam.warmup < 0 || o.adam.warmup > 1000000000) {
    return Status::error("warmup must be between 0 and 1e9 steps");
  }
  // Refuse sizes whose buffers could not be allocated: in wasm a failed std::vector allocation
  // aborts the module. Counted: four parameter-sized buffers, the per-batch activations and
  // gradients (about 8 x (B * 12) x width, plus the MLP and logits at "?"), the held-out set.
  const double D = double(o.d_model), M = double(o.mlp), K = double(shape.classes);
  const double params = 21 * D + 12 * D + 4 * (D * D + D) + 2 * D * M + M + D + D * K + K;
  const double rows = double(std::max<std::size_t>(o.batch, kEvalChunk));
  const double floats =
      4 * params + rows * (12 * (8 * D + 1) + 4 * M + 3 * K + 8 * D) + double(o.eval_size) * 13;
  if (floats > kMaxFloats) {
    return Status::error("these options need about " + std::to_string(int(floats * 4 / 1048576)) +
                         " MiB, more than the trainer's limit of " +
                         std::to_string(int(kMaxFloats * 4 / 1048576)) + " MiB");
  }
  out->reset(new Trainer(o));
  return Status::ok();
}

Trainer::Trainer(const TrainerOptions& o)
    : options_(o),
      model_(new Classifier(ClassifierShape{o.d_model, o.heads, o.mlp,
                                            static_cast<std::size_t>(class_count(o.variant))},
                            o.seed)),
      batches_(o.seed) {
  words_.resize(o.batch * kTokens);
  targets_.resize(o.batch);
  Mulberry32 held(held_out_seed(o.seed));
  held_words_.resize(o.eval_size * kTokens);
  held_targets_.resize(o.eval_size);
  for (std::size_t i = 0; i < o.eval_size; ++i) {
    next_sequence(held, held_words_.data() + i * kTokens);
    held_targets_[i] = target_class(held_words_.data() + i * kTokens, o.variant);
  }
}

Evaluation Trainer::step() {
  const std::size_t B = options_.batch;
  for (std::size_t b = 0; b < B; ++b) {
    next_sequence(batches_, words_.data() + b * kTokens);
    targets_[b] = target_class(words_.data() + b * kTokens, options_.variant);
  }
  const BatchResult r = model_->run(words_.data(), targets_.data(), B, true);
  ++steps_;
  Classifier& m = *model_;
  adam_step(options_.adam, steps_, m.parameter_count(), m.buffer(Slot::kValue),
            m.buffer(Slot::kGradient), m.buffer(Slot::kAdamM), m.buffer(Slot::kAdamV));
  return Evaluation{r.loss, static_cast<double>(r.correct) / static_cast<double>(B)};
}

void Trainer::evaluate_chunks(Evaluation* e, HeadShares* shares) {
  const std::size_t N = options_.eval_size, H = options_.heads;
  double loss = 0;
  std::size_t correct = 0;
  if (shares) shares->verb.assign(H, 0.0), shares->noun.assign(H, 0.0);
  for (std::size_t start = 0; start < N; start += kEvalChunk) {
    const std::size_t n = std::min(kEvalChunk, N - start);
    const int* words = held_words_.data() + start * kTokens;
    const BatchResult r = model_->run(words, held_targets_.data() + start, n, false);
    loss += r.loss * static_cast<double>(n);
    correct += r.correct;
    if (!shares) continue;
    for (std::size_t i = 0; i < n; ++i) {
      const int* w = words + i * kTokens;
      const int verb = latest_of_kind(w, kVerbBase), noun = latest_of_kind(w, kNounBase);
      for (std::size_t h = 0; h < H; ++h) {
        const float* p = model_->attention() + (i * H + h) * kTokens;
        shares->verb[h] += p[verb];
        shares->noun[h] += p[noun];
      }
    }
  }
  if (e) *e = Evaluation{loss / static_cast<double>(N), static_cast<double>(correct) / N};
  if (shares) {
    for (std::size_t h = 0; h < H; ++h) {
      shares->verb[h] /= static_cast<double>(N);
      shares->noun[h] /= static_cast<double>(N);
    }
  }
}

Evaluation Trainer::evaluate() {
  Evaluation e;
  evaluate_chunks(&e, nullptr);
  return e;
}

HeadShares Trainer::head_shares() {
  HeadShares s;
  evaluate_chunks(nullptr, &s);
  return s;
}

void Trainer::attention_from(const int* words, float* out) {
  model_->run(words, nullptr, 1, false);
  std::copy_n(model_->attention(), options_.heads * kTokens, out);
}

}  // namespace headwise::train
