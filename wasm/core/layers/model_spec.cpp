#include "model_spec.hpp"

#include <string>
#include <utility>

namespace headwise::layers {

namespace {

Status within(const SpecLimit& limit, std::size_t v) {
  if (v >= limit.lo && v <= limit.hi) return Status::ok();
  return Status::error(std::string(limit.name) + " must be between " + std::to_string(limit.lo) +
                       " and " + std::to_string(limit.hi) + ", got " + std::to_string(v));
}

}  // namespace

Status validate_spec(const ModelSpec& s) {
  const std::pair<const SpecLimit&, std::size_t> sizes[] = {
      {kVocabLimit, s.vocab}, {kTokensLimit, s.tokens},    {kDModelLimit, s.d_model},
      {kHeadsLimit, s.heads}, {kHeadDimLimit, s.head_dim}, {kLayersLimit, s.layers},
      {kMlpLimit, s.mlp},     {kClassesLimit, s.classes}};
  for (const auto& [limit, value] : sizes) {
    Status st = within(limit, value);
    if (!st.is_ok()) return st;
  }
  return check_dimensions(s.attention(1, 0));
}

const char* activation_name(Activation a) { return a == Activation::kGelu ? "gelu" : "relu"; }

}  // namespace headwise::layers
