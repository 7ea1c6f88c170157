// The trainer's blocks with shared K/V heads (ModelSpec::kv_heads): a stack with kvHeads < heads
// is the multi-head stack on K/V weights repeated for each group (whose every gradient
// layers_stack_test checks against an independent double model and central differences): the
// same loss, the same gradients, and each shared K/V weight's gradient the sum of its repeats';
// kvHeads = heads is the multi-head stack bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "layers/positions/position_kind.hpp"
#include "layers/stack.hpp"
#include "test_helpers.hpp"

namespace headwise::layers {
namespace {

using Floats = std::vector<float>;

struct StackRun {
  std::unique_ptr<Stack> stack;
  double loss;
  std::map<std::string, Floats> grads;
};

struct Problem {
  std::vector<int> ids, targets;
  std::vector<std::uint8_t> mask;
};

Problem problem(const ModelSpec& spec, std::size_t batch) {
  Problem p;
  const std::size_t reads = batch * spec.read_tokens();
  const Floats u = testing::random_vector(batch * spec.tokens + reads, 77);
  for (std::size_t i = 0; i < batch * spec.tokens; ++i)
    p.ids.push_back(int((u[i] + 1) * 0.5f * float(spec.vocab)) % int(spec.vocab));
  for (std::size_t r = 0; r < reads; ++r) {
    p.targets.push_back(int((u[batch * spec.tokens + r] + 1) * 0.5f * float(spec.classes)) %
                        int(spec.classes));
    p.mask.push_back(1);
  }
  return p;
}

// Creates the stack; `values` (by name) replace its seeded parameters where given.
StackRun run(const ModelSpec& spec, std::size_t batch, const Problem& pr,
             const std::map<std::string, Floats>& values) {
  StackRun r;
  EXPECT_TRUE(Stack::create(spec, batch, 5, &r.stack).is_ok());
  for (const TableEntry& e : r.stack->table().parameters) {
    const auto it = values.find(e.name);
    if (it == values.end()) continue;
    EXPECT_EQ(it->second.size(), e.size) << e.name;
    std::copy(it->second.begin(), it->second.end(), r.stack->buffer(Slot::kValue) + e.offset);
  }
  r.loss =
      r.stack->run(pr.ids.data(), batch, {pr.targets.data(), pr.mask.data(), nullptr}, true).loss;
  for (const TableEntry& e : r.stack->table().parameters) {
    const float* g = r.stack->buffer(Slot::kGradient) + e.offset;
    r.grads[e.name] = Floats(g, g + e.size);
  }
  return r;
}

std::map<std::string, Floats> values_of(const Stack& s) {
  std::map<std::string, Floats> v;
  for (const TableEntry& e : s.table().parameters) {
    const float* p = s.buffer(Slot::kValue) + e.offset;
    v[e.name] = Floats(p, p + e.size);
  }
  return v;
}

bool is_kv(const std::string& name) {
  for (const char* suffix : {".wk", ".wv", ".bk", ".bv"})
    if (name.size() > 3 && name.compare(name.size() - 3, 3, suffix) == 0) return true;
  return false;
}

TEST(KvStack, GroupedBlocksAreMultiHeadOnRepeatedKvWeights) {
  for (const char* const* kind = position_kind_names(); *kind; ++kind) {
    const char* positions = *kind;
    for (std::size_t kv : {1u, 2u}) {
      ModelSpec gqa;
      gqa.vocab = 11, gqa.tokens = 9, gqa.d_model = 12, gqa.heads = 4, gqa.head_dim = 3;
      gqa.layers = 2, gqa.mlp = 16, gqa.classes = 7, gqa.layer_norm = true;
      gqa.position = find_position_kind(positions);
      gqa.kv_heads = kv;
      SCOPED_TRACE(std::string(positions) + " kvHeads " + std::to_string(kv));
      ASSERT_TRUE(validate_spec(gqa).is_ok());
      const std::size_t batch = 3, hd = gqa.head_dim, group = gqa.heads / kv;
      const Problem pr = problem(gqa, batch);
      const StackRun grouped = run(gqa, batch, pr, {});
      ModelSpec mha = gqa;
      mha.kv_heads = 0;
      // Repeat each K/V head's columns for its group.
      std::map<std::string, Floats> repeated = values_of(*grouped.stack);
      std::size_t kv_tensors = 0;
      const std::size_t C = mha.attention(1, 0).concat(), Ck = gqa.attention(1, 0).kv_concat();
      const auto from = [&](std::size_t col) { return (col / hd / group) * hd + col % hd; };
      for (auto& [name, v] : repeated) {
        if (!is_kv(name)) continue;
        ++kv_tensors;
        const std::size_t rows = v.size() / Ck;  // D for weights, 1 for biases
        Floats out(rows * C);
        for (std::size_t i = 0; i < rows; ++i)
          for (std::size_t col = 0; col < C; ++col) out[i * C + col] = v[i * Ck + from(col)];
        v = out;
      }
      EXPECT_EQ(kv_tensors, 4 * gqa.layers);  // wk, bk, wv, bv of every block
      const StackRun multi = run(mha, batch, pr, repeated);
      EXPECT_NEAR(grouped.loss, multi.loss, 1e-5 * (1 + std::fabs(multi.loss)));
      for (const auto& [name, g] : grouped.grads) {
        std::vector<double> expected(g.size(), 0.0);
        const Floats& m = multi.grads.at(name);
        if (is_kv(name)) {
          const std::size_t rows = g.size() / Ck;
          for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t col = 0; col < C; ++col)
              expected[i * Ck + from(col)] += m[i * C + col];
        } else {
          expected.assign(m.begin(), m.end());
        }
        EXPECT_TRUE(testing::all_close(g.data(), expected, 2e-5, 2e-5)) << name;
      }
    }
  }
}

TEST(KvStack, KvHeadsEqualToHeadsIsTheMultiHeadStackBitForBit) {
  ModelSpec spec;
  spec.vocab = 11, spec.tokens = 8, spec.d_model = 16, spec.heads = 4, spec.head_dim = 4;
  spec.position = find_position_kind("rope");
  const Problem pr = problem(spec, 2);
  const StackRun mha = run(spec, 2, pr, {});
  spec.kv_heads = 4;
  const StackRun same = run(spec, 2, pr, {});
  EXPECT_EQ(mha.loss, same.loss);
  for (const auto& [name, g] : mha.grads)
    EXPECT_EQ(0, std::memcmp(g.data(), same.grads.at(name).data(), g.size() * sizeof(float)))
        << name;
  spec.kv_heads = 3;
  const Status s = validate_spec(spec);
  ASSERT_FALSE(s.is_ok());
  // The layer's dimension rule, the explorer's layer's words (layers/attention_shape.hpp).
  EXPECT_EQ(s.message(),
            "kvHeads 3 must divide heads (4): each K/V head is shared by the same number of query "
            "heads");
  spec.kv_heads = 8;
  EXPECT_EQ(validate_spec(spec).message(), "kvHeads 8 is more than heads (4)");
}

}  // namespace
}  // namespace headwise::layers
