// Grouped-query and multi-query attention in the one operator (layers/attention.hpp kv_heads):
// forward with heads in place and split out, backward, against plain double loops with the K/V
// heads repeated (reference_kv.hpp) and central finite differences, at tail sizes; kv_heads ==
// heads is multi-head attention bit for bit (operator and Model); RoPE and ALiBi agree with
// multi-head attention on repeated K/V weights; bad K/V head counts are refused in words.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "attention_options.hpp"
#include "layers/attention.hpp"
#include "layers/positions/position_kind.hpp"
#include "model.hpp"
#include "reference_kv.hpp"
#include "simd_sizes.hpp"
#include "test_helpers.hpp"

namespace headwise::layers {
namespace {

using testing::all_close;
using testing::KvCase;
using testing::KvParams;
using Vec = std::vector<double>;
using Floats = std::vector<float>;

Floats to_float(const Vec& v) { return Floats(v.begin(), v.end()); }

KvParams random_params(const KvCase& c, std::uint64_t seed) {
  const std::size_t D = c.d_model, C = c.concat(), Ck = c.kv_concat();
  std::uint64_t stream = seed * 16;
  auto fill = [&](std::size_t n, double scale) {
    const Floats f = testing::random_vector(n, ++stream, float(scale));
    return Vec(f.begin(), f.end());  // exactly representable in float
  };
  KvParams p;
  p.x = fill(c.batch * c.tokens * D, 1.0);
  p.wq = fill(D * C, 1.5 / std::sqrt(double(D)));  // softmax rows far from flat
  p.wk = fill(D * Ck, 1.5 / std::sqrt(double(D)));
  p.wv = fill(D * Ck, 1 / std::sqrt(double(D)));
  p.wout = fill(C * D, 1 / std::sqrt(double(C)));
  p.bq = c.bias ? fill(C, 0.3) : Vec(C, 0.0);
  p.bk = c.bias ? fill(Ck, 0.3) : Vec(Ck, 0.0);
  p.bv = c.bias ? fill(Ck, 0.3) : Vec(Ck, 0.0);
  p.bout = c.bias ? fill(D, 0.3) : Vec(D, 0.0);
  return p;
}

// The operator's float copies of the parameters and every tensor of one forward pass.
struct OperatorRun {
  KvCase c;
  std::vector<Floats> w;  // x, wq, wk, wv, wout, bq, bk, bv, bout
  Floats xq, q, k, v, q_heads, k_heads, v_heads, context_heads, scores, attention, concat, y,
      scratch;
  AttentionShape shape;

  OperatorRun(const KvCase& kc, KvParams& p, const PositionKind* position,
              std::size_t kv_heads_field)
      : c(kc) {
    for (Vec* v : p.all()) w.push_back(to_float(*v));
    const std::size_t B = c.batch, T = c.tokens, H = c.heads, hd = c.head_dim,
                      Tq = c.query_tokens();
    shape = AttentionShape{B, T, c.d_model, H, hd, c.query_from, c.causal, position};
    shape.kv_heads = kv_heads_field;
    xq.resize(B * Tq * c.d_model);
    q.resize(B * Tq * c.concat());
    k.resize(B * T * c.kv_concat());
    v.resize(B * T * c.kv_concat());
    q_heads.resize(B * T * c.concat());
    context_heads.resize(B * T * c.concat());
    k_heads.resize(B * T * c.kv_concat());
    v_heads.resize(B * T * c.kv_concat());
    scores.resize(B * H * Tq * T);
    attention.resize(B * H * Tq * T);
    concat.resize(B * Tq * c.concat());
    y.resize(B * Tq * c.d_model);
    scratch.resize(head_scratch_floats(T, hd));
  }
  AttentionParams params() const {
    const auto b = [&](int i) { return c.bias ? w[i].data() : nullptr; };
    return {w[1].data(), b(5), w[2].data(), b(6), w[3].data(), b(7), w[4].data(), b(8)};
  }
  // split: heads copied out (the explorer's layout); keep: scores and attention kept.
  AttentionTensors tensors(bool split, bool keep) {
    const auto on = [](bool yes, Floats& f) { return yes ? f.data() : nullptr; };
    return {xq.data(),          q.data(),
            k.data(),           v.data(),
            on(split, q_heads), on(split, k_heads),
            on(split, v_heads), on(split, context_heads),
            on(keep, scores),   on(keep, attention),
            concat.data(),      {scratch.data()}};
  }
  void forward(bool split, bool keep) {
    attention_forward(shape, params(), w[0].data(), tensors(split, keep), y.data());
  }
};

std::string name(const KvCase& c) {
  return "B" + std::to_string(c.batch) + " T" + std::to_string(c.tokens) + " D" +
         std::to_string(c.d_model) + " H" + std::to_string(c.heads) + " Hkv" +
         std::to_string(c.kv_heads) + " hd" + std::to_string(c.head_dim) + " qf" +
         std::to_string(c.query_from) + (c.causal ? " causal" : " full") + (c.bias ? " bias" : "");
}

// Tail sizes: widths that are no multiple of the SIMD width, T around the short-head limit (16)
// and past the 128-key tiles, MQA (Hkv 1), GQA, and MHA for comparison.
const KvCase kForwardCases[] = {
    {1, 1, 5, 2, 1, 3, 0, true, false},    {2, 7, 10, 6, 3, 3, 0, true, true},
    {2, 7, 10, 6, 2, 3, 0, false, true},   {1, 17, 9, 4, 1, 5, 0, true, false},
    {3, 16, 6, 4, 2, 2, 0, true, true},    {1, 33, 12, 8, 4, 7, 0, false, false},
    {1, 130, 8, 4, 2, 9, 0, true, true},   {1, 131, 8, 4, 1, 16, 0, false, false},
    {2, 9, 7, 3, 3, 5, 0, true, true},     {2, 12, 11, 6, 2, 4, 11, true, true},
    {1, 20, 9, 4, 2, 3, 10, false, false},
};

TEST(KvAttention, ForwardMatchesDoubleLoopsWithRepeatedKvHeads) {
  for (const KvCase& c : kForwardCases) {
    SCOPED_TRACE(name(c));
    KvParams p = random_params(c, 7 + c.tokens);
    const Vec ref = testing::kv_reference(c, p);
    for (bool split : {false, true}) {
      if (split && c.query_from > 0) continue;  // split heads: every position a query
      for (bool keep : {false, true}) {
        OperatorRun run(c, p, nullptr, c.kv_heads);
        run.forward(split, keep);
        EXPECT_TRUE(all_close(run.y.data(), ref, 1e-5, 1e-5))
            << (split ? "split" : "in place") << (keep ? ", intermediates" : "");
      }
    }
  }
}

TEST(KvAttention, KvHeadsEqualToHeadsIsMultiHeadBitForBit) {
  for (const KvCase& c : kForwardCases) {
    if (c.kv_heads != c.heads) continue;
    for (bool split : {false, true}) {
      for (bool keep : {false, true}) {
        if (split && c.query_from > 0) continue;
        KvParams p = random_params(c, 3);
        OperatorRun mha(c, p, nullptr, 0), kv(c, p, nullptr, c.heads);
        mha.forward(split, keep);
        kv.forward(split, keep);
        EXPECT_EQ(0, std::memcmp(mha.y.data(), kv.y.data(), mha.y.size() * sizeof(float)));
      }
    }
  }
  // The explorer's layer through its options: kvHeads = heads against kvHeads left out, every kind.
  for (const char* const* kind = position_kind_names(); *kind; ++kind) {
    const char* positions = *kind;
    SCOPED_TRACE(positions);
    std::vector<Floats> outputs;
    for (double kv_heads : {0.0, 4.0}) {
      AttentionOptions o;
      o.batch = 2, o.tokens = 19, o.d_model = 20, o.heads = 4, o.bias = true, o.seed = 5;
      o.positions = positions;
      o.kv_heads = kv_heads;
      Limits limits;
      Config config;
      ASSERT_TRUE(config_from_options(o, &limits, &config).is_ok());
      std::unique_ptr<Model> m;
      ASSERT_TRUE(Model::create(config, limits, 5, &m).is_ok());
      const Floats x = testing::random_vector(m->tensor_size(TensorId::kInput), 9);
      std::copy(x.begin(), x.end(), m->tensor(TensorId::kInput));
      Floats out;
      for (bool keep : {false, true}) {
        ASSERT_TRUE(m->keep_intermediates(keep).is_ok());
        ASSERT_TRUE(m->run(Step::kForwardFused).is_ok());
        out.insert(out.end(), m->tensor(TensorId::kOutput),
                   m->tensor(TensorId::kOutput) + m->tensor_size(TensorId::kOutput));
      }
      outputs.push_back(out);
    }
    EXPECT_EQ(0,
              std::memcmp(outputs[0].data(), outputs[1].data(), outputs[0].size() * sizeof(float)));
  }
}

// Multi-head attention on K/V weights repeated for each group is the same function with every kind
// that enters the operator (RoPE rotates the shared keys, ALiBi biases each query head's scores),
// split and in place.
TEST(KvAttention, PositionsAgreeWithMultiHeadOnRepeatedKvWeights) {
  const KvCase cases[] = {{2, 13, 10, 6, 2, 4, 0, true, true},
                          {1, 40, 12, 8, 1, 6, 0, false, false},
                          {2, 9, 8, 4, 2, 2, 5, true, true}};
  for (const PositionKind* const* entry = position_kinds(); *entry; ++entry) {
    const PositionKind* kind = *entry;
    if (!kind->rotate && !kind->score_bias) continue;
    const char* kind_name = kind->name;
    for (const KvCase& c : cases) {
      SCOPED_TRACE(name(c) + " " + kind_name);
      KvParams p = random_params(c, 11);
      // The same parameters with each K/V head's columns repeated for every query head.
      KvCase full = c;
      full.kv_heads = c.heads;
      KvParams rep = p;
      const std::size_t D = c.d_model, C = c.concat(), Ck = c.kv_concat(), hd = c.head_dim;
      const std::size_t group = c.heads / c.kv_heads;
      for (Vec* m : {&rep.wk, &rep.wv}) m->assign(D * C, 0.0);
      rep.bk.assign(C, 0.0);
      rep.bv.assign(C, 0.0);
      for (std::size_t col = 0; col < C; ++col) {
        const std::size_t from = (col / hd / group) * hd + col % hd;
        for (std::size_t i = 0; i < D; ++i) {
          rep.wk[i * C + col] = p.wk[i * Ck + from];
          rep.wv[i * C + col] = p.wv[i * Ck + from];
        }
        rep.bk[col] = p.bk[from];
        rep.bv[col] = p.bv[from];
      }
      for (bool split : {false, true}) {
        if (split && c.query_from > 0) continue;
        OperatorRun grouped(c, p, kind, c.kv_heads), mha(full, rep, kind, 0);
        grouped.forward(split, true);
        mha.forward(split, true);
        const Vec ref(mha.y.begin(), mha.y.end());
        EXPECT_TRUE(all_close(grouped.y.data(), ref, 1e-5, 1e-5)) << (split ? "split" : "in place");
        const Vec weights(mha.attention.begin(), mha.attention.end());
        EXPECT_TRUE(all_close(grouped.attention.data(), weights, 1e-6, 1e-5)) << "attention";
      }
    }
  }
}

const char* const kGradNames[] = {"dx", "dWq", "dWk", "dWv", "dWout", "dbq", "dbk", "dbv", "dbout"};

void check_backward(const KvCase& c, std::uint64_t seed) {
  KvParams p = random_params(c, seed);
  const std::size_t B = c.batch, T = c.tokens, D = c.d_model, Tq = c.query_tokens();
  const Floats gf = testing::random_vector(B * Tq * D, seed + 1000);
  const Vec g(gf.begin(), gf.end());
  KvParams ref;
  const Vec y = testing::kv_reference(c, p, &g, &ref);

  OperatorRun run(c, p, nullptr, c.kv_heads);
  run.forward(false, true);
  ASSERT_TRUE(all_close(run.y.data(), y, 1e-5, 1e-5)) << "forward";
  std::vector<Floats> got;
  for (Vec* v : p.all()) got.emplace_back(v->size(), -7.0f);  // overwritten, or unused (biases)
  const auto gb = [&](int i) { return c.bias ? got[i].data() : nullptr; };
  const AttentionGrads grads{got[1].data(), gb(5), got[2].data(), gb(6),
                             got[3].data(), gb(7), got[4].data(), gb(8)};
  Floats dconcat(B * Tq * c.concat()), dq(B * Tq * c.concat()), dk(B * T * c.kv_concat()),
      dv(B * T * c.kv_concat()), ds(Tq * T), dx_query(B * Tq * D, 0.0f);
  const AttentionScratch scratch{dconcat.data(), dq.data(), dk.data(), dv.data(), ds.data()};
  attention_backward(run.shape, run.params(), run.w[0].data(), run.tensors(false, true), gf.data(),
                     grads, scratch, got[0].data(), dx_query.data());
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < Tq * D; ++i)
      got[0][(b * T + c.query_from) * D + i] += dx_query[b * Tq * D + i];

  const std::vector<Vec*> refs = ref.all();
  std::vector<Vec*> values = p.all();
  const std::size_t count = c.bias ? 9 : 5;
  for (std::size_t t = 0; t < count; ++t) {
    EXPECT_TRUE(all_close(got[t].data(), *refs[t], 2e-5, 2e-5)) << kGradNames[t];
    // Central differences of the double forward, at up to 24 entries spread over the tensor.
    Vec& vals = *values[t];
    const std::size_t n = vals.size(), stride = std::max<std::size_t>(1, n / 24);
    const auto loss = [&] {
      const Vec out = testing::kv_reference(c, p);
      double l = 0;
      for (std::size_t i = 0; i < out.size(); ++i) l += out[i] * g[i];
      return l;
    };
    for (std::size_t i = 0; i < n; i += stride) {
      const double keep = vals[i], h = 1e-5;
      vals[i] = keep + h;
      const double up = loss();
      vals[i] = keep - h;
      const double down = loss();
      vals[i] = keep;
      const double fd = (up - down) / (2 * h);
      EXPECT_NEAR((*refs[t])[i], fd, 1e-7 + 1e-6 * std::fabs(fd))
          << kGradNames[t] << "[" << i << "]";
      EXPECT_NEAR(got[t][i], fd, 5e-5 + 5e-5 * std::fabs(fd)) << kGradNames[t] << "[" << i << "]";
    }
  }
}

TEST(KvAttention, GradientsMatchDoubleReferenceAndFiniteDifferences) {
  const KvCase cases[] = {
      {2, 5, 7, 4, 2, 3, 0, true, true},   {2, 6, 9, 6, 1, 2, 0, false, true},
      {1, 17, 8, 4, 4, 5, 0, true, false}, {3, 4, 6, 2, 1, 9, 0, true, true},
      {2, 9, 10, 6, 3, 1, 8, true, true},  {1, 12, 7, 4, 2, 3, 6, false, false},
      {1, 131, 6, 4, 2, 3, 0, true, true},
  };
  for (const KvCase& c : cases) {
    SCOPED_TRACE(name(c));
    check_backward(c, 20 + c.tokens);
  }
}

TEST(KvAttention, BadKvHeadsAreRefusedInWords) {
  struct Bad {
    double heads, kv_heads;
    const char* message;
  };
  for (const Bad& bad :
       {Bad{4, 3, "kvHeads 3 must divide heads (4)"}, Bad{4, 8, "kvHeads 8 is more than heads (4)"},
        Bad{6, 4, "kvHeads 4 must divide heads (6)"},
        Bad{4, 1.5, "kvHeads must be a whole number between 1 and 65536, got 1.5"},
        Bad{4, -1, "kvHeads must be a whole number between 1 and 65536, got -1"}}) {
    AttentionOptions o;
    o.d_model = 12, o.heads = bad.heads, o.kv_heads = bad.kv_heads;
    Limits limits;
    Config config;
    Status s = config_from_options(o, &limits, &config);
    if (s.is_ok()) s = validate(config, limits);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find(bad.message), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace headwise::layers
