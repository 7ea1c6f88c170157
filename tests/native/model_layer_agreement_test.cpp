// The explorer's inference Model and the trainer's attention layer on the same weights: both run
// attend_head_f32 (the Model on split heads, the layer in place on the projections' rows), so
// both must match the plain double-precision reference (reference_mha.hpp) to the same stated
// tolerance, |got - ref| <= 2e-5 + 2e-5 |ref|, for the output and the attention weights; with
// intermediates the Model runs the very path the layer runs and agrees with it bit for bit.
// Sizes at the kernels' tails: 1 token, below and above the short kernel's 16 tokens, one past
// the rows path's 64-row block, several 128-key tiles; odd and vector-sized head_dims; with and
// without biases, causal or not, positions none, RoPE and ALiBi.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "attention_options.hpp"
#include "layers/attention.hpp"
#include "layers/positions/position_kind.hpp"
#include "model.hpp"
#include "reference_mha.hpp"
#include "reference_positions.hpp"
#include "rng.hpp"
#include "test_helpers.hpp"

namespace headwise {
namespace {

constexpr double kTol = 2e-5;

struct Case {
  std::size_t b, t, d, h, hd;
  bool causal, bias;
};
const Case kCases[] = {{2, 1, 6, 2, 3, true, false},     {2, 7, 10, 2, 5, true, true},
                       {1, 17, 24, 3, 8, false, false},  {2, 65, 26, 2, 13, true, true},
                       {1, 130, 32, 2, 16, true, false}, {1, 70, 12, 3, 4, false, true}};

std::vector<double> rows_of(const std::vector<double>& all, std::size_t batch, std::size_t tokens,
                            std::size_t from, std::size_t width) {
  std::vector<double> out;
  for (std::size_t b = 0; b < batch; ++b)
    out.insert(out.end(), all.begin() + (b * tokens + from) * width,
               all.begin() + (b * tokens + tokens) * width);
  return out;
}

TEST(ModelLayerAgreement, InferenceModelAndTrainingLayerMatchTheReference) {
  for (const Case& c : kCases) {
    for (const char* kind : {"none", "rope", "alibi"}) {
      SCOPED_TRACE(std::string(kind) + " B=" + std::to_string(c.b) + " T=" + std::to_string(c.t) +
                   " hd=" + std::to_string(c.hd) + (c.causal ? " causal" : "") +
                   (c.bias ? " bias" : ""));
      AttentionOptions o;
      o.batch = double(c.b), o.tokens = double(c.t), o.d_model = double(c.d);
      o.heads = double(c.h), o.head_dim = double(c.hd), o.causal = c.causal, o.bias = c.bias;
      o.positions = kind;
      Limits limits;
      Config config;
      ASSERT_TRUE(config_from_options(o, &limits, &config).is_ok());
      std::unique_ptr<Model> m;
      ASSERT_TRUE(Model::create(config, limits, 5, &m).is_ok());
      const std::size_t B = c.b, T = c.t, D = c.d, H = c.h, hd = c.hd, C = H * hd;
      float* x = m->tensor(TensorId::kInput);
      fill_uniform(x, B * T * D, 9, tensor_row(TensorId::kInput).stream, 1.0f);
      if (c.bias) {  // seeded biases are small; larger ones make them matter
        for (TensorId id : {TensorId::kBq, TensorId::kBk, TensorId::kBv, TensorId::kBout})
          for (std::size_t i = 0; i < m->tensor_size(id); ++i) m->tensor(id)[i] *= 8.0f;
      }
      const auto bias = [&](TensorId id) { return c.bias ? m->tensor(id) : nullptr; };

      testing::RefPositions hooks;
      if (std::string(kind) == "rope") hooks.rotate = testing::rope;
      if (std::string(kind) == "alibi") hooks.bias = testing::alibi;
      const testing::RefWeights rw{m->tensor(TensorId::kWq), m->tensor(TensorId::kWk),
                                   m->tensor(TensorId::kWv), m->tensor(TensorId::kWout),
                                   bias(TensorId::kBq),      bias(TensorId::kBk),
                                   bias(TensorId::kBv),      bias(TensorId::kBout)};
      const testing::RefResult ref =
          testing::reference_mha({B, T, D, H, hd, c.causal}, rw, x, hooks);

      // The Model: the fast kernels, then with intermediates (the rows path).
      ASSERT_TRUE(m->run(Step::kForwardFused).is_ok());
      EXPECT_TRUE(testing::all_close(m->tensor(TensorId::kOutput), ref.output, kTol, kTol))
          << "Model, no intermediates";
      ASSERT_TRUE(m->keep_intermediates(true).is_ok());
      ASSERT_TRUE(m->run(Step::kForwardFused).is_ok());
      EXPECT_TRUE(testing::all_close(m->tensor(TensorId::kOutput), ref.output, kTol, kTol))
          << "Model, intermediates";
      EXPECT_TRUE(testing::all_close(m->tensor(TensorId::kAttention), ref.attention, kTol, kTol))
          << "Model attention";
      const std::vector<float> model_out(m->tensor(TensorId::kOutput),
                                         m->tensor(TensorId::kOutput) + B * T * D);

      // The training layer on the same weights, queries from every position and from later ones.
      const layers::PositionKind* position = layers::find_position_kind(kind);
      ASSERT_NE(position, nullptr);
      const layers::AttentionParams w{m->tensor(TensorId::kWq),   bias(TensorId::kBq),
                                      m->tensor(TensorId::kWk),   bias(TensorId::kBk),
                                      m->tensor(TensorId::kWv),   bias(TensorId::kBv),
                                      m->tensor(TensorId::kWout), bias(TensorId::kBout)};
      for (std::size_t qf : {std::size_t(0), T / 2, T - 1}) {
        SCOPED_TRACE("query_from " + std::to_string(qf));
        const std::size_t Tq = T - qf;
        const layers::AttentionShape shape{B, T, D, H, hd, qf, c.causal, position};
        std::vector<float> xq(B * Tq * D), q(B * Tq * C), k(B * T * C), v(B * T * C),
            p(B * H * Tq * T), concat(B * Tq * C), y(B * Tq * D);
        const layers::AttentionTensors tape{xq.data(), q.data(), k.data(),      v.data(),
                                            nullptr,   nullptr,  nullptr,       nullptr,
                                            nullptr,   p.data(), concat.data(), {nullptr}};
        layers::attention_forward(shape, w, x, tape, y.data());
        EXPECT_TRUE(testing::all_close(y.data(), rows_of(ref.output, B, T, qf, D), kTol, kTol))
            << "layer output";
        std::vector<double> ref_p;
        for (std::size_t bh = 0; bh < B * H; ++bh)
          ref_p.insert(ref_p.end(), ref.attention.begin() + (bh * T + qf) * T,
                       ref.attention.begin() + (bh + 1) * T * T);
        EXPECT_TRUE(testing::all_close(p.data(), ref_p, kTol, kTol)) << "layer attention";
        if (qf == 0) {
          for (std::size_t i = 0; i < y.size(); ++i)
            ASSERT_EQ(y[i], model_out[i]) << "layer and Model with intermediates differ at " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace headwise
