#include "tensor_table.hpp"

#include "rng.hpp"

namespace headwise {

namespace {

// The shape symbols the rows are written in.
namespace symbols {
constexpr Dim B = Dim::kB, T = Dim::kT, D = Dim::kD, H = Dim::kH, hd = Dim::kHd, S = Dim::kS,
              Hkv = Dim::kHkv, none = Dim::kNone;
}  // namespace symbols
using namespace symbols;

// A block's row of the layer library, as this layer holds it.
TensorRow library_row(TensorId id, layers::PartRows (*rows)(layers::Part), int field, Alloc alloc,
                      std::uint32_t stream) {
  TensorRow r = rows(layers::Part::kBlock).rows[field].row;
  r.id = static_cast<int>(id);
  r.alloc = alloc;
  r.stream = stream;
  if (alloc == Alloc::kWithIntermediates) r.role = Role::kIntermediate;
  for (int i = 0; i < r.shape.rank; ++i)
    if (r.shape.dims[i] == Dim::kTq) r.shape.dims[i] = Dim::kT;
  return r;
}

#define HEADWISE_UNPAREN(...) __VA_ARGS__
#define HEADWISE_OWN_ROW(id, name, role, alloc, shape, stream, fan_in) \
  TensorRow{static_cast<int>(TensorId::id),                            \
            name,                                                      \
            Role::role,                                                \
            Alloc::alloc,                                              \
            make_shape(HEADWISE_UNPAREN shape),                        \
            static_cast<std::uint32_t>(stream),                        \
            fan_in},
#define HEADWISE_LIB_ROW(id, rows, field, alloc, stream) \
  library_row(TensorId::id, layers::rows##_rows, layers::field, Alloc::alloc, stream),
// Built on first use, after the library's rows (another file's) are surely initialised.
const TensorRow* rows() {
  static const TensorRow kRows[] = {HEADWISE_ATTENTION_TENSORS(HEADWISE_OWN_ROW, HEADWISE_LIB_ROW)};
  static_assert(sizeof(kRows) / sizeof(kRows[0]) == kTensorCount, "one row per tensor id");
  return kRows;
}
#undef HEADWISE_OWN_ROW
#undef HEADWISE_LIB_ROW
#undef HEADWISE_UNPAREN

#define HEADWISE_OWN_STREAM(id, name, role, alloc, shape, stream, fan_in) stream,
#define HEADWISE_LIB_STREAM(id, rows, field, alloc, stream) stream,
constexpr std::uint32_t kStreams[] = {
    HEADWISE_ATTENTION_TENSORS(HEADWISE_OWN_STREAM, HEADWISE_LIB_STREAM)};
#undef HEADWISE_OWN_STREAM
#undef HEADWISE_LIB_STREAM

constexpr bool seeded_streams_distinct() {
  for (int i = 0; i < kTensorCount; ++i)
    for (int j = i + 1; j < kTensorCount; ++j)
      if (kStreams[i] != 0 && kStreams[i] == kStreams[j]) return false;
  return true;
}
static_assert(seeded_streams_distinct(), "each seeded row has a stream of its own");

#define HEADWISE_STEP_NAME(id, name) name,
constexpr const char* kStepNames[] = {HEADWISE_STEPS(HEADWISE_STEP_NAME)};
#undef HEADWISE_STEP_NAME

}  // namespace

const TensorRow* tensor_table() { return rows(); }

const char* step_name(Step step) {
  const int i = static_cast<int>(step);
  return i >= 0 && i < kStepCount ? kStepNames[i] : "";
}

}  // namespace headwise
