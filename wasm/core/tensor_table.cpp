#include "tensor_table.hpp"

#include "rng.hpp"

namespace headwise {

namespace {

// The shape symbols the rows are written in.
namespace symbols {
constexpr Dim B = Dim::kB, T = Dim::kT, D = Dim::kD, H = Dim::kH, hd = Dim::kHd, C = Dim::kC,
              Hkv = Dim::kHkv, Ckv = Dim::kCkv, S = Dim::kS, none = Dim::kNone;
}  // namespace symbols
using namespace symbols;

#define HEADWISE_UNPAREN(...) __VA_ARGS__
#define HEADWISE_TABLE_ROW(id, name, role, alloc, shape, stream, fan_in) \
  TensorRow{static_cast<int>(TensorId::id),                              \
            name,                                                        \
            Role::role,                                                  \
            Alloc::alloc,                                                \
            make_shape(HEADWISE_UNPAREN shape),                          \
            static_cast<std::uint32_t>(stream),                          \
            fan_in},
constexpr TensorRow kRows[] = {HEADWISE_ATTENTION_TENSORS(HEADWISE_TABLE_ROW)};
#undef HEADWISE_TABLE_ROW
#undef HEADWISE_UNPAREN
static_assert(sizeof(kRows) / sizeof(kRows[0]) == kTensorCount, "one row per tensor id");

constexpr bool rows_in_id_order() {
  for (int i = 0; i < kTensorCount; ++i)
    if (kRows[i].id != i) return false;
  return true;
}
static_assert(rows_in_id_order(), "tensor_table()[i].id == i");

constexpr bool seeded_streams_distinct() {
  for (int i = 0; i < kTensorCount; ++i)
    for (int j = i + 1; j < kTensorCount; ++j)
      if (kRows[i].stream != 0 && kRows[i].stream == kRows[j].stream) return false;
  return true;
}
static_assert(seeded_streams_distinct(), "each seeded row has a stream of its own");

#define HEADWISE_STEP_NAME(id, name) name,
constexpr const char* kStepNames[] = {HEADWISE_STEPS(HEADWISE_STEP_NAME)};
#undef HEADWISE_STEP_NAME

}  // namespace

const TensorRow* tensor_table() { return kRows; }

const char* step_name(Step step) {
  const int i = static_cast<int>(step);
  return i >= 0 && i < kStepCount ? kStepNames[i] : "";
}

}  // namespace headwise
