#include "model.hpp"

#include <cmath>
#include <new>

#include "fused_steps.hpp"
#include "layers/positions/position_kind.hpp"
#include "loop_attention.hpp"
#include "position_steps.hpp"
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
  m->config_ = config;
  m->limits_ = limits;
  m->dims_ = dims_of(config);
  if (!dim_values(config, &m->dim_values_)) return Status::error("this configuration is too large");

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
      fill_input_positions(m->dims_, data);
    }
  }
  *out = std::move(m);
  return Status::ok();
}

Status Model::keep_intermediates(bool keep) {
  if (keep == keeping_) return Status::ok();
  if (keep) {
    Status s = validate(config_, limits_, /*with_intermediates=*/true);
    if (!s.is_ok()) return s;
  }
  // The rows held only while intermediates are kept.
  const auto kept_only = [this](const TensorRow& row) {
    return row_allocated(row, config_, true) && !row_allocated(row, config_, false);
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
  if (keep && config_.position && config_.position->score_bias)
    fill_score_bias(dims_, tensor(TensorId::kScoreBias));
  keeping_ = keep;
  return Status::ok();
}

Status Model::run(Step step) {
  const Dims& d = dims_;
  const ProjectionWeights w{tensor(TensorId::kWq), tensor(TensorId::kWk), tensor(TensorId::kWv),
                            bias(TensorId::kBq),   bias(TensorId::kBk),   bias(TensorId::kBv)};
  const HeadScratch scratch{tensor(TensorId::kHeadScratch)};
  float* scores = tensor(TensorId::kScores);
  float* attention = tensor(TensorId::kAttention);
  switch (step) {
    case Step::kProject:
      project(d, w, positioned_input(), tensor(TensorId::kQ), tensor(TensorId::kK),
              tensor(TensorId::kV));
      return Status::ok();
    case Step::kSplit:
      split_heads(d, tensor(TensorId::kQ), tensor(TensorId::kQHeads));
      split_heads(d, tensor(TensorId::kK), tensor(TensorId::kKHeads));
      split_heads(d, tensor(TensorId::kV), tensor(TensorId::kVHeads));
      if (d.position && d.position->rotate) {
        rotate_heads(d, tensor(TensorId::kQHeads));
        rotate_heads(d, tensor(TensorId::kKHeads));
      }
      return Status::ok();
    case Step::kAttend:
      attend(d, tensor(TensorId::kQHeads), tensor(TensorId::kKHeads), tensor(TensorId::kVHeads),
             scratch, tensor(TensorId::kContextHeads), scores, attention);
      return Status::ok();
    case Step::kMerge:
      merge_heads(d, tensor(TensorId::kContextHeads), tensor(TensorId::kConcat));
      return Status::ok();
    case Step::kOutProject:
      out_project(d, tensor(TensorId::kWout), bias(TensorId::kBout), tensor(TensorId::kConcat),
                  tensor(TensorId::kOutput));
      return Status::ok();
    case Step::kForwardFused:
      for (Step s : {Step::kProject, Step::kSplit, Step::kAttend, Step::kMerge, Step::kOutProject})
        run(s);
      return Status::ok();
    case Step::kForwardLoop: {
      if (d.position && (d.position->rotate || d.position->score_bias)) {
        return Status::error(std::string("the loop version has no ") + d.position->name +
                             " positions: use the fused forward pass");
      }
      const LoopBuffers buffers{tensor(TensorId::kQHeads),
                                tensor(TensorId::kKHeads),
                                tensor(TensorId::kVHeads),
                                tensor(TensorId::kConcat),
                                scores,
                                attention};
      forward_loop(d, w, tensor(TensorId::kWout), bias(TensorId::kBout), positioned_input(),
                   scratch, buffers, tensor(TensorId::kOutput));
      return Status::ok();
    }
  }
  return Status::error("unknown step " + std::to_string(static_cast<int>(step)));
}

const float* Model::positioned_input() {
  if (tensor_size(TensorId::kPositions) == 0) return tensor(TensorId::kInput);
  add_input_positions(dims_, tensor(TensorId::kPositions), tensor(TensorId::kInput),
                      tensor(TensorId::kPositioned));
  return tensor(TensorId::kPositioned);
}

}  // namespace headwise
