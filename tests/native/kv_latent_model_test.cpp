// createAttention({ attention: 'mla' })'s core: the options' refusals (check_dimensions), the
// latent layer (latent_model.hpp) running the one latent operator in both forms, its decoding
// against its forward pass, and its memory budget with the cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "attention_options.hpp"
#include "latent_model.hpp"

namespace headwise {
namespace {

AttentionOptions mla(double kv_latent, double rope_dim) {
  AttentionOptions o;
  o.attention = "mla";
  o.kv_latent = kv_latent;
  o.rope_dim = rope_dim;
  return o;
}

std::string refusal(const AttentionOptions& o) {
  Limits limits;
  Config c;
  Status s = config_from_options(o, &limits, &c);
  if (s.is_ok()) s = LatentModel::validate(c, limits);
  return s.message();
}

TEST(LatentModel, RefusesInWords) {
  EXPECT_NE(refusal(mla(0, 0)).find("needs kvLatent"), std::string::npos);
  EXPECT_NE(refusal(mla(4, 3)).find("ropeDim 3 must be even"), std::string::npos);
  EXPECT_NE(refusal(mla(4, 4)).find("more than headDim (3)"), std::string::npos);
  AttentionOptions grouped = mla(4, 2);
  grouped.kv_heads = 1;
  EXPECT_NE(refusal(grouped).find("leave kvHeads out"), std::string::npos);
  AttentionOptions plain;
  plain.rope_dim = 2;
  Limits limits;
  Config c;
  Status s = config_from_options(plain, &limits, &c);
  if (s.is_ok()) s = validate_shape(c, limits);
  EXPECT_NE(s.message().find("ropeDim belongs to multi-head latent attention"), std::string::npos);
  EXPECT_EQ(refusal(mla(4, 2)), "");
}

float max_abs_diff(const float* a, const float* b, std::size_t n) {
  float m = 0;
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

TEST(LatentModel, BothFormsAndDecodeAgree) {
  AttentionOptions o = mla(5, 2);
  o.batch = 2;
  o.tokens = 7;
  o.d_model = 8;
  Limits limits;
  Config c;
  ASSERT_TRUE(config_from_options(o, &limits, &c).is_ok());
  std::unique_ptr<LatentModel> m;
  ASSERT_TRUE(LatentModel::create(c, limits, 3, &m).is_ok());
  const std::size_t B = 2, T = 7, D = 8, n = B * T * D;
  float* x = m->tensor(LatentTensor::kInput);
  for (std::size_t i = 0; i < n; ++i) x[i] = std::sin(0.37f * float(i));
  ASSERT_TRUE(m->forward(false, false).is_ok());
  const std::vector<float> explicit_y(m->tensor(LatentTensor::kOutput),
                                      m->tensor(LatentTensor::kOutput) + n);
  ASSERT_TRUE(m->forward(true, true).is_ok());
  EXPECT_EQ(m->tensor_size(LatentTensor::kAttention), B * 2 * T * T);
  float largest = 0;
  for (float v : explicit_y) largest = std::max(largest, std::fabs(v));
  EXPECT_LT(max_abs_diff(explicit_y.data(), m->tensor(LatentTensor::kOutput), n), 1e-6f * largest);
  for (std::size_t t = 0; t < T; ++t) {
    ASSERT_TRUE(m->prepare_decode().is_ok());
    for (std::size_t b = 0; b < B; ++b)
      std::copy_n(x + (b * T + t) * D, D, m->decode_input() + b * D);
    ASSERT_TRUE(m->decode().is_ok());
    for (std::size_t b = 0; b < B; ++b)
      EXPECT_LT(max_abs_diff(m->decode_output() + b * D, explicit_y.data() + (b * T + t) * D, D),
                1e-5f);
  }
  EXPECT_EQ(m->cache_bytes(), B * T * (5 + 2) * sizeof(float));
  EXPECT_FALSE(m->prepare_decode().is_ok());  // full
}

TEST(LatentModel, CacheRefusedPastTheBudget) {
  AttentionOptions o = mla(2, 2);
  o.memory_budget = 3400;  // the layer: 3,312 bytes; with its cache: 3,528
  Limits limits;
  Config c;
  ASSERT_TRUE(config_from_options(o, &limits, &c).is_ok());
  std::unique_ptr<LatentModel> m;
  ASSERT_TRUE(LatentModel::create(c, limits, 0, &m).is_ok());
  const Status s = m->prepare_decode();
  EXPECT_NE(s.message().find("more than the memory budget"), std::string::npos) << s.message();
  EXPECT_EQ(m->cache_bytes(), 0u);
  EXPECT_TRUE(m->forward(true, false).is_ok());
}

// The layer's backward is the operator's (latent_backward after an explicit forward that kept
// the attention), bit for bit, at the last forward's input; refused before any forward.
TEST(LatentModel, BackwardIsTheOperators) {
  AttentionOptions o = mla(3, 2);
  o.batch = 2;
  o.tokens = 5;
  o.d_model = 8;
  Limits limits;
  Config c;
  ASSERT_TRUE(config_from_options(o, &limits, &c).is_ok());
  std::unique_ptr<LatentModel> m;
  ASSERT_TRUE(LatentModel::create(c, limits, 4, &m).is_ok());
  EXPECT_NE(m->prepare_backward().message().find("needs a forward() first"), std::string::npos);
  const std::size_t n = 2 * 5 * 8;
  float* x = m->tensor(LatentTensor::kInput);
  for (std::size_t i = 0; i < n; ++i) x[i] = std::cos(0.29f * float(i));
  ASSERT_TRUE(m->forward(true, false).is_ok());
  ASSERT_TRUE(m->prepare_backward().is_ok());
  float* dy = m->gradient(kLatentWeightCount + 1);
  for (std::size_t i = 0; i < n; ++i) dy[i] = std::sin(0.41f * float(i));
  const std::vector<float> g(dy, dy + n);
  ASSERT_TRUE(m->backward().is_ok());
  const layers::LatentShape& s = m->shape();
  std::vector<std::vector<float>> grads(kLatentWeightCount);
  float* gp[kLatentWeightCount];
  for (int i = 0; i < kLatentWeightCount; ++i) {
    grads[i].resize(m->gradient_size(i));
    gp[i] = grads[i].data();
  }
  std::vector<float> scratch(std::size_t(layers::latent_backward_floats(s).value())), dx(n);
  using L = LatentTensor;
  const layers::LatentParams w{m->tensor(L::kWdkv), m->tensor(L::kWuk), m->tensor(L::kWuv),
                               m->tensor(L::kWq),   m->tensor(L::kWqr), m->tensor(L::kWkr),
                               m->tensor(L::kWout)};
  layers::latent_backward(s, w, x, m->tensor(L::kAttention), g.data(),
                          {gp[0], gp[1], gp[2], gp[3], gp[4], gp[5], gp[6]}, scratch.data(),
                          dx.data());
  for (int i = 0; i < kLatentWeightCount; ++i)
    EXPECT_EQ(max_abs_diff(gp[i], m->gradient(i), grads[i].size()), 0.0f) << i;
  EXPECT_EQ(max_abs_diff(dx.data(), m->gradient(kLatentWeightCount), n), 0.0f);
}

}  // namespace
}  // namespace headwise
