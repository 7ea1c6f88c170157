// The explorer's layer decoding with a KV cache (layers/kv_cache.hpp): the cache's allocation,
// its place in the memory budget, and the positions added to x at each step's position.
#include <algorithm>

#include "model.hpp"

namespace headwise {

namespace {

CheckedU64 cache_floats(const layers::AttentionShape& s) {
  return layers::kv_cache_floats(s, s.tokens) + layers::decode_floats(s);
}

}  // namespace

std::uint64_t Model::cache_heap_bytes() const {
  return cache_k_.empty() ? 0 : cache_floats(shape_).value() * sizeof(float) + 3 * kAllocationBytes;
}

std::uint64_t Model::cache_bytes() const {
  return cache_k_.empty() ? 0 : layers::kv_cache_floats(shape_, shape_.tokens).value() * 4;
}

Status Model::check_budget_with_cache(bool with_intermediates, std::uint64_t cache_heap) const {
  const CheckedU64 layer = needed_bytes(shape_, with_intermediates);
  const CheckedU64 total = layer + cache_heap;
  const std::uint64_t budget = effective_budget(limits_);
  if (total.ok() && total.value() <= budget) return Status::ok();
  const double kv = double(layers::kv_cache_floats(shape_, shape_.tokens).value()) * 4;
  return Status::error("the KV cache (" + format_bytes(kv) + " for " +
                       std::to_string(shape_.tokens) + " positions of " +
                       std::to_string(shape_.kv()) + " K/V heads" +
                       (with_intermediates ? ", with the (B, H, T, T) scores kept" : "") +
                       ") and the layer need " + format_bytes(double(total.value())) +
                       ", more than the memory budget of " + format_bytes(double(budget)));
}

Status Model::prepare_decode() {
  if (!cache_k_.empty()) {
    if (cache_.length < cache_.capacity) return Status::ok();
    return Status::error("the KV cache is full: this layer decodes at most " +
                         std::to_string(cache_.capacity) +
                         " positions (its tokens); resetCache() starts again");
  }
  const CheckedU64 floats = cache_floats(shape_);
  const std::uint64_t heap =
      floats.ok() ? floats.value() * sizeof(float) + 3 * kAllocationBytes : UINT64_MAX;
  Status s = check_budget_with_cache(keeping_, heap);
  if (!s.is_ok()) return s;
  const std::size_t kv = std::size_t(layers::kv_cache_floats(shape_, shape_.tokens).value() / 2);
  if (!cache_k_.allocate(kv) || !cache_v_.allocate(kv) ||
      !decode_.allocate(std::size_t(layers::decode_floats(shape_).value()))) {
    reset_cache();
    return Status::error("out of memory allocating the KV cache");
  }
  cache_ = {cache_k_.data(), cache_v_.data(), shape_.tokens, 0};
  return Status::ok();
}

float* Model::decode_output() {
  const std::size_t B = shape_.batch;
  return decode_.empty() ? nullptr : decode_.data() + B * (shape_.d_model + 2 * shape_.concat());
}

Status Model::decode() {
  Status s = prepare_decode();
  if (!s.is_ok()) return s;
  const std::size_t B = shape_.batch, D = shape_.d_model, C = shape_.concat();
  float* x = decode_.data();
  if (tensor_size(TensorId::kPositions) != 0) {  // learned or sinusoidal: row `length` added
    const float* row = tensor(TensorId::kPositions) + cache_.length * D;
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t i = 0; i < D; ++i) x[b * D + i] += row[i];
  }
  const layers::DecodeTensors t{
      x, x + B * D, x + B * (D + C), decode_output(), {tensor(TensorId::kHeadScratch)}};
  layers::decode_step(shape_, params(), &cache_, t);
  return Status::ok();
}

void Model::reset_cache() {
  cache_k_.release();
  cache_v_.release();
  decode_.release();
  cache_ = {};
}

}  // namespace headwise
