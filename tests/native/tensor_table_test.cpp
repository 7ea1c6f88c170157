// The tensor table against what a model really allocates, in both directions: every row's buffer
// holds exactly the product of its shape (or nothing when the row is not allocated), and the
// memory budget is exactly the sum over the rows a model holds; plus independent hand-written
// expectations, so a wrong row cannot agree with itself.
#include "tensor_table.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "config.hpp"
#include "model.hpp"
#include "rng.hpp"
#include "simd_sizes.hpp"

namespace headwise {
namespace {

Config make(std::int64_t b, std::int64_t t, std::int64_t d, std::int64_t h, std::int64_t hd,
            bool bias) {
  Config c;
  c.batch = b, c.tokens = t, c.d_model = d, c.heads = h, c.head_dim = hd, c.bias = bias;
  return c;
}

const Config kConfigs[] = {make(2, 6, 6, 2, 0, false),    make(2, 6, 6, 2, 0, true),
                           make(1, 17, 768, 12, 0, true), make(3, 5, 7, 3, 4, false),
                           make(4, 33, 21, 7, 0, true),   make(1, 130, 40, 4, 9, false)};

// The size of each dimension symbol, written out from the configuration directly.
std::uint64_t expected_dim(const Config& c, Dim dim) {
  const std::uint64_t hd = std::uint64_t(c.head_dim ? c.head_dim : c.d_model / c.heads);
  switch (dim) {
    case Dim::kB:
      return std::uint64_t(c.batch);
    case Dim::kT:
      return std::uint64_t(c.tokens);
    case Dim::kD:
      return std::uint64_t(c.d_model);
    case Dim::kH:
      return std::uint64_t(c.heads);
    case Dim::kHd:
      return hd;
    case Dim::kC:
      return std::uint64_t(c.heads) * hd;
    case Dim::kS:
      return head_scratch_floats(std::size_t(c.tokens), std::size_t(hd));
    case Dim::kHkv:
      return std::uint64_t(c.kv_heads > 0 ? c.kv_heads : c.heads);
    case Dim::kCkv:
      return std::uint64_t(c.kv_heads > 0 ? c.kv_heads : c.heads) * hd;
    case Dim::kV:  // a layer stack's dimensions: no row of the attention layer uses them
    case Dim::kM:
    case Dim::kK:
    case Dim::kTq:
    case Dim::kNone:
      break;
  }
  ADD_FAILURE() << "no such dimension in the attention layer's table";
  return 0;
}

std::uint64_t expected_floats(const Config& c, const TensorRow& row) {
  std::uint64_t n = 1;
  for (int i = 0; i < row.shape.rank; ++i) n *= expected_dim(c, row.shape.dims[i]);
  return n;
}

TEST(TensorTable, RowsAreInIdOrderWithTheNamesJavaScriptUses) {
  const char* names[] = {"wq",           "wk",     "wv",     "wOut",      "bq",
                         "bk",           "bv",     "bOut",   "input",     "positions",
                         "positioned",   "q",      "k",      "v",         "qHeads",
                         "kHeads",       "vHeads", "scores", "attention", "scoreBias",
                         "contextHeads", "concat", "output"};
  std::set<std::string> seen;
  for (int i = 0; i < kTensorCount; ++i) {
    const TensorRow& row = tensor_table()[i];
    EXPECT_EQ(row.id, i);
    EXPECT_TRUE(seen.insert(row.name).second) << "duplicate name " << row.name;
    if (i < int(sizeof(names) / sizeof(names[0]))) {
      EXPECT_STREQ(row.name, names[i]);
    }
  }
  EXPECT_STREQ(step_name(Step::kOutProject), "out-project");
  EXPECT_STREQ(step_name(Step::kForwardLoop), "forwardLoop");
}

TEST(TensorTable, LearnedRowsHaveAStreamAndAFanInOthersNone) {
  for (int i = 0; i < kTensorCount; ++i) {
    const TensorRow& row = tensor_table()[i];
    const bool learned = row.role == Role::kWeight || row.role == Role::kBias;
    EXPECT_EQ(learned, row.fan_in != Dim::kNone) << row.name;
    if (learned) {
      EXPECT_NE(row.stream, 0u) << row.name;
    }
  }
  // The numbers a seed's weights and randomInput have always been drawn from: renumbering a row
  // would change every seeded layer.
  const std::pair<TensorId, std::uint32_t> fixed[] = {
      {TensorId::kWq, 1},   {TensorId::kWk, 2},   {TensorId::kWv, 3},
      {TensorId::kWout, 4}, {TensorId::kBq, 5},   {TensorId::kBk, 6},
      {TensorId::kBv, 7},   {TensorId::kBout, 8}, {TensorId::kInput, 9}};
  for (const auto& [id, stream] : fixed)
    EXPECT_EQ(tensor_row(id).stream, stream) << tensor_row(id).name;
  EXPECT_EQ(tensor_row(TensorId::kWout).fan_in, Dim::kC);
  EXPECT_EQ(tensor_row(TensorId::kBq).fan_in, Dim::kD);
}

TEST(TensorTable, EveryBufferHoldsExactlyItsShapeOrNothing) {
  for (const Config& c : kConfigs) {
    std::unique_ptr<Model> model;
    ASSERT_TRUE(Model::create(c, {}, 7, &model).is_ok());
    for (bool kept : {false, true, false}) {
      ASSERT_TRUE(model->keep_intermediates(kept).is_ok());
      for (int i = 0; i < kTensorCount; ++i) {
        const TensorRow& row = tensor_table()[i];
        const TensorId id = static_cast<TensorId>(i);
        const bool held = row.alloc == Alloc::kAlways ||
                          (row.alloc == Alloc::kWithBias && c.bias) ||
                          (row.alloc == Alloc::kWithIntermediates && kept);
        EXPECT_EQ(model->tensor_size(id), held ? expected_floats(c, row) : 0u)
            << row.name << " bias " << c.bias << " kept " << kept;
        EXPECT_EQ(model->tensor(id) != nullptr, held) << row.name;
      }
    }
  }
}

TEST(TensorTable, TheBudgetIsTheSumOfWhatAModelHolds) {
  for (const Config& c : kConfigs) {
    std::unique_ptr<Model> model;
    ASSERT_TRUE(Model::create(c, {}, 7, &model).is_ok());
    for (bool kept : {false, true}) {
      ASSERT_TRUE(model->keep_intermediates(kept).is_ok());
      std::uint64_t held = 0;
      for (int i = 0; i < kTensorCount; ++i) held += model->tensor_size(static_cast<TensorId>(i));
      const CheckedU64 needed = tensor_bytes(c, kept);
      ASSERT_TRUE(needed.ok());
      EXPECT_EQ(needed.value(), held * sizeof(float)) << "kept " << kept;
    }
  }
}

TEST(TensorTable, TheBudgetMatchesTheFormulaWrittenOut) {
  for (const Config& c : kConfigs) {
    const std::uint64_t B = c.batch, T = c.tokens, D = c.d_model, H = c.heads;
    const std::uint64_t hd = c.head_dim ? c.head_dim : D / H, C = H * hd;
    std::uint64_t floats = 4 * D * C + 2 * B * T * D + 8 * B * T * C + head_scratch_floats(T, hd);
    if (c.bias) floats += 3 * C + D;
    EXPECT_EQ(tensor_bytes(c, false).value(), 4 * floats);
    EXPECT_EQ(tensor_bytes(c, true).value(), 4 * (floats + 2 * B * H * T * T));
  }
}

TEST(TensorTable, LearnedRowsAreSeededFromTheirStreamAndFanIn) {
  const Config c = make(1, 3, 10, 2, 3, true);  // C = 6, D = 10: fan-ins differ
  std::unique_ptr<Model> model;
  ASSERT_TRUE(Model::create(c, {}, 99, &model).is_ok());
  for (int i = 0; i < kTensorCount; ++i) {
    const TensorRow& row = tensor_table()[i];
    const TensorId id = static_cast<TensorId>(i);
    if (row.role != Role::kWeight && row.role != Role::kBias) continue;
    const std::size_t n = model->tensor_size(id);
    std::vector<float> expected(n);
    fill_uniform(expected.data(), n, 99, row.stream, fan_in_bound(expected_dim(c, row.fan_in)));
    EXPECT_EQ(0, std::memcmp(expected.data(), model->tensor(id), n * sizeof(float))) << row.name;
  }
  EXPECT_EQ(model->tensor(TensorId::kQ)[0], 0.0f);  // activations start at zero
}

TEST(TensorTable, RowSizesOverflowAsRefusalsNotWraps) {
  DimValues dims{};
  dims.fill(std::uint64_t(1) << 20);
  const TensorRow& scores = tensor_row(TensorId::kScores);  // B H T T: 2^80
  EXPECT_FALSE(row_floats(scores, dims).ok());
  dims.fill(std::uint64_t(1) << 16);  // 2^64: one past the largest uint64
  EXPECT_FALSE(row_floats(scores, dims).ok());
  dims.fill(std::uint64_t(1) << 15);
  ASSERT_TRUE(row_floats(scores, dims).ok());
  EXPECT_EQ(row_floats(scores, dims).value(), std::uint64_t(1) << 60);
}

}  // namespace
}  // namespace headwise
