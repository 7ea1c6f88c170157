#include "latent_model.hpp"

#include <algorithm>
#include <new>
#include <string>

#include "rng.hpp"

namespace headwise {

namespace {

// A weight's fan-in, the symbol of its rows (in) dimension.
enum class FanIn { D, dc, C, none };

struct LatentRow {
  const char* name;
  std::uint32_t stream;
  FanIn fan_in;
};
constexpr LatentRow kRows[] = {
#define HEADWISE_LATENT_ROW(id, name, stream, fan_in) {name, stream, FanIn::fan_in},
    HEADWISE_LATENT_TENSORS(HEADWISE_LATENT_ROW)
#undef HEADWISE_LATENT_ROW
};
static_assert(sizeof(kRows) / sizeof(kRows[0]) == kLatentTensorCount, "one row per tensor id");

layers::LatentShape latent_shape(const Config& config) {
  const Config c = layers::resolved(config);
  return {c.batch, c.tokens, c.d_model, c.heads, c.head_dim, c.kv_latent, c.rope_dim, c.causal};
}

std::array<std::size_t, 4> dims_of(const layers::LatentShape& s, LatentTensor id) {
  const std::size_t B = s.batch, T = s.tokens, D = s.d_model, H = s.heads;
  const std::size_t dc = s.kv_latent, dr = s.rope_dim, C = H * s.head_dim;
  switch (id) {
    case LatentTensor::kWdkv:
      return {D, dc, 0, 0};
    case LatentTensor::kWuk:
    case LatentTensor::kWuv:
      return {dc, C, 0, 0};
    case LatentTensor::kWq:
      return {D, C, 0, 0};
    case LatentTensor::kWqr:
      return {D, H * dr, 0, 0};
    case LatentTensor::kWkr:
      return {D, dr, 0, 0};
    case LatentTensor::kWout:
      return {C, D, 0, 0};
    case LatentTensor::kInput:
    case LatentTensor::kOutput:
      return {B, T, D, 0};
    case LatentTensor::kLatent:
      return {B, T, dc, 0};
    case LatentTensor::kRopeKey:
      return {B, T, dr, 0};
    case LatentTensor::kAttention:
    case LatentTensor::kCount:
      break;
  }
  return {B, H, T, T};
}

CheckedU64 floats_of(const layers::LatentShape& s, LatentTensor id) {
  const std::array<std::size_t, 4> dims = dims_of(s, id);
  CheckedU64 n = 1;
  for (int i = 0; i < latent_tensor_rank(id); ++i) n *= dims[i];
  return n;
}

CheckedU64 workspace_floats(const layers::LatentShape& s) {
  const CheckedU64 a = layers::latent_workspace_floats(s, false);
  const CheckedU64 b = layers::latent_workspace_floats(s, true);
  if (!a.ok() || !b.ok()) return a + b;
  return std::max(a.value(), b.value());
}

CheckedU64 step_floats(const layers::LatentShape& s) {
  return CheckedU64(2) * s.batch * s.d_model + layers::latent_decode_floats(s, s.tokens);
}

CheckedU64 cache_floats(const layers::LatentShape& s) {
  return CheckedU64(s.batch) * s.tokens * (CheckedU64(s.kv_latent) + s.rope_dim);
}

CheckedU64 weight_floats(const layers::LatentShape& s) {
  CheckedU64 n = 0;
  for (int i = 0; i < kLatentWeightCount; ++i) n += floats_of(s, static_cast<LatentTensor>(i));
  return n;
}

// The backward's buffer: the weights' gradients, dx and dy (B, T, D), latent_backward's scratch.
CheckedU64 backward_floats(const layers::LatentShape& s) {
  return weight_floats(s) + CheckedU64(2) * floats_of(s, LatentTensor::kInput) +
         layers::latent_backward_floats(s);
}

// What the layer holds besides its rows and scratch: the attention kept, the cache, the backward.
struct Held {
  bool attention, cache, backward;
};

// Bytes the layer holds in the heap in that state: its rows, the absorbed weights, the scratch,
// the object and each allocation's header (as config.hpp's needed_bytes counts a layer's).
CheckedU64 heap_bytes_of(const layers::LatentShape& s, Held held) {
  CheckedU64 floats = layers::latent_absorbed_floats(s) + workspace_floats(s);
  for (int i = 0; i < kLatentTensorCount; ++i) {
    const auto id = static_cast<LatentTensor>(i);
    if (id != LatentTensor::kAttention || held.attention) floats += floats_of(s, id);
  }
  if (held.cache) floats += cache_floats(s) + step_floats(s);
  if (held.backward) floats += backward_floats(s);
  const std::uint64_t allocations = held.backward ? 21 : 20;
  return floats * sizeof(float) + kLayerObjectBytes + CheckedU64(kAllocationBytes) * allocations;
}

Status budget_status(const layers::LatentShape& s, const Limits& limits, Held held) {
  const bool with_attention = held.attention, with_cache = held.cache;
  const CheckedU64 bytes = heap_bytes_of(s, held);
  const std::uint64_t budget = effective_budget(limits);
  if (bytes.ok() && bytes.value() <= budget) return Status::ok();
  std::string what = "this latent attention layer";
  if (held.backward) what += " with its gradients";
  if (with_attention)
    what += (held.backward ? " and" : " with") + std::string(" its (B, H, T, T) attention kept");
  if (with_cache)
    what += " and its latent cache (" +
            format_bytes(double(cache_floats(s).value()) * sizeof(float)) + " for " +
            std::to_string(s.tokens) + " positions)";
  return Status::error(what +
                       (with_attention || with_cache || held.backward ? " need " : " needs ") +
                       (bytes.ok() ? format_bytes(double(bytes.value())) : "more than 2^64 bytes") +
                       ", more than the memory budget of " + format_bytes(double(budget)));
}

}  // namespace

int latent_tensor_rank(LatentTensor id) {
  if (static_cast<int>(id) < kLatentWeightCount) return 2;
  return id == LatentTensor::kAttention ? 4 : 3;
}

const char* latent_tensor_name(LatentTensor id) {
  const int i = static_cast<int>(id);
  return i >= 0 && i < kLatentTensorCount ? kRows[i].name : "";
}

Status LatentModel::validate(const Config& config, const Limits& limits) {
  if (!config.latent) return Status::error("not a latent attention configuration");
  Status s = validate_shape(config, limits);
  if (!s.is_ok()) return s;
  return budget_status(latent_shape(config), limits, {false, false, false});
}

Status LatentModel::create(const Config& config, const Limits& limits, std::uint64_t seed,
                           std::unique_ptr<LatentModel>* out) {
  Status s = validate(config, limits);
  if (!s.is_ok()) return s;
  std::unique_ptr<LatentModel> m(new (std::nothrow) LatentModel());
  if (!m) return Status::error("out of memory allocating the latent attention layer");
  m->limits_ = limits;
  m->shape_ = latent_shape(config);
  const layers::LatentShape& sh = m->shape_;
  const std::size_t fan_ins[] = {sh.d_model, sh.kv_latent, sh.heads * sh.head_dim, 0};
  for (int i = 0; i < kLatentTensorCount; ++i) {
    const auto id = static_cast<LatentTensor>(i);
    const std::size_t floats = std::size_t(floats_of(sh, id).value());
    if (id == LatentTensor::kAttention || floats == 0) continue;  // attention: when kept
    if (!m->buffers_[i].allocate(floats))
      return Status::error(std::string("out of memory allocating ") + kRows[i].name);
    if (kRows[i].stream != 0)
      fill_uniform(m->buffers_[i].data(), floats, seed, kRows[i].stream,
                   fan_in_bound(fan_ins[static_cast<int>(kRows[i].fan_in)]));
  }
  if (!m->absorbed_.allocate(std::size_t(layers::latent_absorbed_floats(sh).value())) ||
      !m->workspace_.allocate(std::size_t(workspace_floats(sh).value())))
    return Status::error("out of memory allocating the latent attention layer's scratch");
  *out = std::move(m);
  return Status::ok();
}

std::array<std::size_t, 4> LatentModel::dims(LatentTensor id) const { return dims_of(shape_, id); }

layers::LatentParams LatentModel::params() {
  using L = LatentTensor;
  return {tensor(L::kWdkv), tensor(L::kWuk), tensor(L::kWuv), tensor(L::kWq),
          tensor(L::kWqr),  tensor(L::kWkr), tensor(L::kWout)};
}

layers::LatentAbsorbed LatentModel::absorbed() {
  const std::size_t half = absorbed_.size() / 2;
  return {absorbed_.data(), absorbed_.data() + half};
}

void LatentModel::absorb() {
  if (absorbed_ready_) return;
  layers::absorb_latent_weights(shape_, params(), absorbed());
  absorbed_ready_ = true;
}

Status LatentModel::forward(bool absorbed_form, bool keep_attention) {
  FloatBuffer& attention = buffers_[index(LatentTensor::kAttention)];
  if (keep_attention && attention.empty()) {
    Status s = budget_status(shape_, limits_, {true, !cache_c_.empty(), !backward_.empty()});
    if (!s.is_ok()) return s;
    if (!attention.allocate(std::size_t(floats_of(shape_, LatentTensor::kAttention).value())))
      return Status::error("out of memory allocating attention");
  } else if (!keep_attention) {
    attention.release();
  }
  using L = LatentTensor;
  const layers::LatentTensors t{tensor(L::kLatent), tensor(L::kRopeKey), tensor(L::kAttention),
                                workspace_.data()};
  if (absorbed_form) {
    absorb();
    layers::latent_forward_absorbed(shape_, params(), absorbed(), tensor(L::kInput), t,
                                    tensor(L::kOutput));
  } else {
    layers::latent_forward_explicit(shape_, params(), tensor(L::kInput), t, tensor(L::kOutput));
  }
  has_input_ = true;
  return Status::ok();
}

std::size_t LatentModel::gradient_size(int i) const {
  if (backward_.empty() || i < 0 || i >= kGradientCount) return 0;
  const auto id = i < kLatentWeightCount ? static_cast<LatentTensor>(i) : LatentTensor::kInput;
  return std::size_t(floats_of(shape_, id).value());
}

float* LatentModel::gradient(int i) {
  if (gradient_size(i) == 0) return nullptr;
  float* p = backward_.data();
  for (int j = 0; j < i; ++j) p += gradient_size(j);
  return p;
}

Status LatentModel::prepare_backward() {
  if (!has_input_)
    return Status::error("backward() needs a forward() first: it differentiates at that input");
  if (!backward_.empty()) return Status::ok();
  Status s = budget_status(shape_, limits_, {true, !cache_c_.empty(), true});
  if (!s.is_ok()) return s;
  if (!backward_.allocate(std::size_t(backward_floats(shape_).value())))
    return Status::error("out of memory allocating the latent layer's gradients");
  return Status::ok();
}

Status LatentModel::backward() {
  Status s = prepare_backward();
  if (s.is_ok()) s = forward(false, true);
  if (!s.is_ok()) return s;
  float* g[kLatentWeightCount];
  for (int i = 0; i < kLatentWeightCount; ++i) g[i] = gradient(i);
  const layers::LatentGrads grads{g[0], g[1], g[2], g[3], g[4], g[5], g[6]};
  float* dx = gradient(kLatentWeightCount);
  const float* dy = gradient(kLatentWeightCount + 1);
  float* scratch = dx + 2 * gradient_size(kLatentWeightCount);
  layers::latent_backward(shape_, params(), tensor(LatentTensor::kInput),
                          tensor(LatentTensor::kAttention), dy, grads, scratch, dx);
  return Status::ok();
}

std::uint64_t LatentModel::cache_bytes() const {
  return cache_c_.empty() ? 0 : cache_floats(shape_).value() * sizeof(float);
}

float* LatentModel::decode_output() {
  return step_.empty() ? nullptr : step_.data() + shape_.batch * shape_.d_model;
}

Status LatentModel::prepare_decode() {
  if (!cache_c_.empty()) {
    if (cache_.length < cache_.capacity) return Status::ok();
    return Status::error("the latent cache is full: this layer decodes at most " +
                         std::to_string(cache_.capacity) +
                         " positions (its tokens); resetCache() starts again");
  }
  Status s = budget_status(shape_, limits_,
                           {tensor_size(LatentTensor::kAttention) != 0, true, !backward_.empty()});
  if (!s.is_ok()) return s;
  const std::size_t per_sequence = shape_.batch * shape_.tokens;
  if (!cache_c_.allocate(per_sequence * shape_.kv_latent) ||
      (shape_.rope_dim > 0 && !cache_kr_.allocate(per_sequence * shape_.rope_dim)) ||
      !step_.allocate(std::size_t(step_floats(shape_).value()))) {
    reset_cache();
    return Status::error("out of memory allocating the latent cache");
  }
  cache_ = {cache_c_.data(), cache_kr_.data(), shape_.tokens, 0};
  return Status::ok();
}

Status LatentModel::decode() {
  Status s = prepare_decode();
  if (!s.is_ok()) return s;
  absorb();
  const std::size_t BD = shape_.batch * shape_.d_model;
  layers::latent_decode_step(shape_, params(), absorbed(), &cache_, step_.data(),
                             step_.data() + 2 * BD, decode_output());
  return Status::ok();
}

void LatentModel::reset_cache() {
  cache_c_.release();
  cache_kr_.release();
  step_.release();
  cache_ = {};
}

}  // namespace headwise
