#include "cache_sizes.hpp"

#include <cmath>
#include <cstring>
#include <string>

#include "config.hpp"
#include "layers/kv_cache.hpp"

namespace headwise {

namespace {

Status whole(const char* name, double v, double lo, double hi) {
  if (v == std::floor(v) && v >= lo && v <= hi) return Status::ok();
  return Status::error(std::string(name) + " must be a whole number between " + format_number(lo) +
                       " and " + format_number(hi) + ", got " + format_number(v));
}

const CachePreset kPresets[] = {
    // name, label, {layers, heads, kvHeads, headDim, kvLatent, ropeDim, tokens, bytes}, source
    {"gpt2-small", "GPT-2 small", {12, 12, 12, 64, 0, 0, 1024, 2}, "Radford et al. 2019; HF gpt2"},
    {"llama2-7b", "LLaMA-2 7B", {32, 32, 32, 128, 0, 0, 4096, 2}, "Touvron et al. 2023, Table 1"},
    {"llama2-70b",
     "LLaMA-2 70B",
     {80, 64, 8, 128, 0, 0, 4096, 2},
     "Touvron et al. 2023; HF config"},
    {"mistral-7b", "Mistral 7B", {32, 32, 8, 128, 0, 0, 4096, 2}, "Jiang et al. 2023, Table 1"},
    {"deepseek-v2",
     "DeepSeek-V2",
     {60, 128, 128, 128, 512, 64, 4096, 2},
     "DeepSeek-AI 2024, section 3.1.2"},
    {nullptr, nullptr, {}, nullptr},
};

}  // namespace

Status cache_sizes(const CacheShape& c, CacheSizes* out) {
  const double kMax = 1 << 20;
  for (const Status& s :
       {whole("layers", c.layers, 1, 4096), whole("heads", c.heads, 1, kMax),
        whole("kvHeads", c.kv_heads, 0, kMax), whole("headDim", c.head_dim, 1, kMax),
        whole("kvLatent", c.kv_latent, 0, kMax), whole("ropeDim", c.rope_dim, 0, kMax),
        whole("tokens", c.tokens, 1, 1 << 24), whole("bytesPerNumber", c.bytes_per_number, 1, 8)}) {
    if (!s.is_ok()) return s;
  }
  // One position of one sequence, as the operator's cache holds it (layers/kv_cache.hpp).
  layers::AttentionShape shape;
  shape.heads = std::size_t(c.heads);
  shape.kv_heads = std::size_t(c.kv_heads);
  shape.head_dim = std::size_t(c.head_dim);
  shape.d_model = shape.concat();
  Status s = layers::check_dimensions(shape);
  if (!s.is_ok()) return s;
  if (c.rope_dim > 0 && c.kv_latent == 0)
    return Status::error("ropeDim is latent attention's: give kvLatent too");
  const std::uint64_t kv = layers::kv_cache_floats(shape, 1).value();
  shape.kv_heads = 0;
  const std::uint64_t mha = layers::kv_cache_floats(shape, 1).value();
  out->numbers_per_token_per_layer = c.kv_latent > 0 ? std::uint64_t(c.kv_latent + c.rope_dim) : kv;
  out->mha_numbers_per_token_per_layer = mha;
  out->bytes_per_token = double(out->numbers_per_token_per_layer) * c.layers * c.bytes_per_number;
  out->mha_bytes_per_token = double(mha) * c.layers * c.bytes_per_number;
  out->bytes_per_sequence = out->bytes_per_token * c.tokens;
  return Status::ok();
}

const CachePreset* cache_presets() { return kPresets; }

const CachePreset* find_cache_preset(const char* name) {
  for (const CachePreset* p = kPresets; p->name; ++p)
    if (std::strcmp(p->name, name) == 0) return p;
  return nullptr;
}

}  // namespace headwise
