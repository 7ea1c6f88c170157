#include "model.hpp"

#include <new>

#include "fused_steps.hpp"
#include "loop_attention.hpp"
#include "rng.hpp"

namespace headwise {

namespace {

Status out_of_memory(const char* what, std::size_t floats) {
  return Status::error(std::string("out of memory allocating ") + what + " (" +
                       format_bytes(double(floats) * sizeof(float)) + ")");
}

}  // namespace

Status Model::create(const Config& config, const Limits& limits, std::uint64_t seed,
                     std::unique_ptr<Model>* out) {
  Status s = validate(config, limits);
  if (!s.is_ok()) return s;
  std::unique_ptr<Model> m(new (std::nothrow) Model());
  if (!m) return Status::error("out of memory allocating the model");
  m->config_ = config;
  m->limits_ = limits;
  m->dims_ = dims_of(config);
  const Dims& d = m->dims_;

  const std::size_t bias_c = d.bias ? d.concat : 0, bias_d = d.bias ? d.d_model : 0;
  const std::size_t rows = d.rows(), per_head = rows * d.concat;
  const std::size_t sizes[kTensorCount] = {
      d.d_model * d.concat, d.d_model * d.concat, d.d_model * d.concat, d.concat * d.d_model,
      bias_c, bias_c, bias_c, bias_d,
      rows * d.d_model,                 // input
      per_head, per_head, per_head,     // q, k, v
      per_head, per_head, per_head,     // per-head q, k, v
      0, 0,                             // scores, attention: on request
      per_head, per_head,               // per-head context, concat
      rows * d.d_model};                // output
  for (int i = 0; i < kTensorCount; ++i) {
    if (!m->buffers_[i].allocate(sizes[i])) return out_of_memory("a tensor", sizes[i]);
  }
  const std::size_t scratch = head_scratch_floats(d.tokens, d.head_dim);
  if (!m->head_scratch_.allocate(scratch)) return out_of_memory("attention scratch", scratch);

  const float in_bound = fan_in_bound(d.d_model), out_bound = fan_in_bound(d.concat);
  const struct {
    TensorId id;
    Stream stream;
    float bound;
  } seeded[] = {{TensorId::kWq, Stream::kWq, in_bound},     {TensorId::kWk, Stream::kWk, in_bound},
                {TensorId::kWv, Stream::kWv, in_bound},     {TensorId::kWout, Stream::kWout, out_bound},
                {TensorId::kBq, Stream::kBq, in_bound},     {TensorId::kBk, Stream::kBk, in_bound},
                {TensorId::kBv, Stream::kBv, in_bound},     {TensorId::kBout, Stream::kBout, out_bound}};
  for (const auto& w : seeded)
    fill_uniform(m->tensor(w.id), m->tensor_size(w.id), seed, static_cast<std::uint32_t>(w.stream),
                 w.bound);
  *out = std::move(m);
  return Status::ok();
}

Status Model::keep_intermediates(bool keep) {
  FloatBuffer& scores = buffers_[index(TensorId::kScores)];
  FloatBuffer& attention = buffers_[index(TensorId::kAttention)];
  if (!keep) {
    scores.release();
    attention.release();
    return Status::ok();
  }
  if (!scores.empty()) return Status::ok();
  Status s = validate(config_, limits_, /*with_intermediates=*/true);
  if (!s.is_ok()) return s;
  const std::size_t n = dims_.intermediate_floats() / 2;
  if (!scores.allocate(n) || !attention.allocate(n)) {
    scores.release();
    attention.release();
    return out_of_memory("the (B, H, T, T) scores", 2 * n);
  }
  return Status::ok();
}

Status Model::run(Step step) {
  const Dims& d = dims_;
  const ProjectionWeights w{tensor(TensorId::kWq), tensor(TensorId::kWk), tensor(TensorId::kWv),
                            bias(TensorId::kBq),   bias(TensorId::kBk),   bias(TensorId::kBv)};
  const HeadScratch scratch{head_scratch_.data()};
  float* scores = tensor(TensorId::kScores);
  float* attention = tensor(TensorId::kAttention);
  switch (step) {
    case Step::kProject:
      project(d, w, tensor(TensorId::kInput), tensor(TensorId::kQ), tensor(TensorId::kK),
              tensor(TensorId::kV));
      return Status::ok();
    case Step::kSplit:
      split_heads(d, tensor(TensorId::kQ), tensor(TensorId::kQHeads));
      split_heads(d, tensor(TensorId::kK), tensor(TensorId::kKHeads));
      split_heads(d, tensor(TensorId::kV), tensor(TensorId::kVHeads));
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
      const LoopBuffers buffers{tensor(TensorId::kQHeads), tensor(TensorId::kKHeads),
                                tensor(TensorId::kVHeads), tensor(TensorId::kConcat), scores,
                                attention};
      forward_loop(d, w, tensor(TensorId::kWout), bias(TensorId::kBout), tensor(TensorId::kInput),
                   scratch, buffers, tensor(TensorId::kOutput));
      return Status::ok();
    }
  }
  return Status::error("unknown step " + std::to_string(static_cast<int>(step)));
}

}  // namespace headwise
