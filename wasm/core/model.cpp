#include "model.hpp"

#include <cmath>
#include <new>

#include "layers/embedding.hpp"
#include "layers/positions/position_kind.hpp"
#include "loop_attention.hpp"
#include "rng.hpp"

namespace headwise {

namespace {

Status out_of_memory(const TensorRow& row, std::uint64_t floats) {
  return Status::error(std::string("out of memory allocating ") + row.name + " (" +
                       format_bytes(double(floats) * sizeof(float)) + ")");
}

}  // namespace

// Sizes come from the table; validate() has checked that their sum, in 64 bits, fits the budget
// and the address space, so every row's count fits a size_t here.
Status Model::create(const Config& config, const Limits& limits, std::uint64_t seed,
                     std::unique_ptr<Model>* out) {
  Status s = validate(config, limits);
  if (!s.is_ok()) return s;
  std::unique_ptr<Model> m(new (std::nothrow) Model());
  if (!m) return Status::error("out of memory allocating the model");
  m->limits_ = limits;
  m->shape_ = layers::resolved(config);
  if (!layers::attention_dims(m->shape_, &m->dim_values_))
    return Status::error("this configuration is too large");

  for (int i = 0; i < kTensorCount; ++i) {
    const TensorRow& row = tensor_table()[i];
    if (!row_allocated(row, config, /*with_intermediates=*/false)) continue;
    const std::uint64_t floats = row_floats(row, m->dim_values_).value();
    if (!m->buffers_[i].allocate(std::size_t(floats))) return out_of_memory(row, floats);
    float* data = m->buffers_[i].data();
    if (row.role == Role::kWeight || row.role == Role::kBias) {
      const float bound = fan_in_bound(std::size_t(m->dim_values_[static_cast<int>(row.fan_in)]));
      fill_uniform(data, m->buffers_[i].size(), seed, row.stream, bound);
    } else if (row.role == Role::kEmbedding && config.position->learned_table) {
      // Variance 1, as the trainer's embeddings start (tensor_row.hpp).
      fill_uniform(data, m->buffers_[i].size(), seed, row.stream, std::sqrt(3.0f));
    } else if (row.role == Role::kEmbedding) {
      layers::fill_position_table({0, m->shape_.tokens, m->shape_.d_model, config.position}, data);
    }
  }
  *out = std::move(m);
  return Status::ok();
}

Status Model::keep_intermediates(bool keep) {
  if (keep == keeping_) return Status::ok();
  if (keep) {
    Status s = validate(shape_, limits_, /*with_intermediates=*/true);
    if (s.is_ok()) s = check_budget_with_cache(true, cache_heap_bytes());
    if (!s.is_ok()) return s;
  }
  // The rows held only while intermediates are kept.
  const auto kept_only = [this](const TensorRow& row) {
    return row_allocated(row, shape_, true) && !row_allocated(row, shape_, false);
  };
  for (int i = 0; i < kTensorCount; ++i) {
    const TensorRow& row = tensor_table()[i];
    if (!kept_only(row)) continue;
    if (!keep) {
      buffers_[i].release();
      continue;
    }
    const std::uint64_t floats = row_floats(row, dim_values_).value();
    if (!buffers_[i].allocate(std::size_t(floats))) {
      for (int j = 0; j < kTensorCount; ++j)
        if (kept_only(tensor_table()[j])) buffers_[j].release();
      return out_of_memory(row, floats);
    }
  }
  if (keep && shape_.position && shape_.position->score_bias)
    layers::fill_score_bias(shape_, tensor(TensorId::kScoreBias));
  keeping_ = keep;
  return Status::ok();
}

layers::AttentionParams Model::params() {
  using I = TensorId;
  return {tensor(I::kWq), bias(I::kBq), tensor(I::kWk),   bias(I::kBk),
          tensor(I::kWv), bias(I::kBv), tensor(I::kWout), bias(I::kBout)};
}

// Every head split out, the scores kept while intermediates are (null otherwise).
layers::AttentionTensors Model::tensors() {
  using I = TensorId;
  const auto t = [this](TensorId id) { return tensor(id); };
  return {nullptr,       t(I::kQ),         t(I::kK),      t(I::kV),
          t(I::kQHeads), t(I::kKHeads),    t(I::kVHeads), t(I::kContextHeads),
          t(I::kScores), t(I::kAttention), t(I::kConcat), {t(I::kHeadScratch)}};
}

Status Model::run(Step step) {
  const layers::AttentionShape& s = shape_;
  switch (step) {
    case Step::kForwardFused:
      layers::attention_forward(s, params(), positioned_input(), tensors(),
                                tensor(TensorId::kOutput));
      return Status::ok();
    case Step::kForwardLoop:
      if (s.position && (s.position->rotate || s.position->score_bias)) {
        return Status::error(std::string("the loop version has no ") + s.position->name +
                             " positions: use the fused forward pass");
      }
      forward_loop(s, params(), positioned_input(), tensors(), tensor(TensorId::kOutput));
      return Status::ok();
    default:
      break;
  }
  const int i = static_cast<int>(step);
  if (i < 0 || i >= static_cast<int>(Step::kForwardFused))
    return Status::error("unknown step " + std::to_string(i));
  const auto stage = static_cast<layers::Stage>(i);
  const float* x = stage == layers::Stage::kProject ? positioned_input() : tensor(TensorId::kInput);
  layers::attention_stage(stage, s, params(), x, tensors(), tensor(TensorId::kOutput));
  return Status::ok();
}

const float* Model::positioned_input() {
  if (tensor_size(TensorId::kPositions) == 0) return tensor(TensorId::kInput);
  const layers::AttentionShape& s = shape_;
  layers::add_position_table({s.batch * s.tokens, s.tokens, s.d_model, s.position},
                             tensor(TensorId::kPositions), tensor(TensorId::kInput),
                             tensor(TensorId::kPositioned));
  return tensor(TensorId::kPositioned);
}

}  // namespace headwise
