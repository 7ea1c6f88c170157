#include "stack_table.hpp"

namespace headwise::layers {

namespace {

constexpr Dim B = Dim::kB, T = Dim::kT, Tq = Dim::kTq, D = Dim::kD, H = Dim::kH, C = Dim::kC,
              Ckv = Dim::kCkv, M = Dim::kM, V = Dim::kV, K = Dim::kK, none = Dim::kNone;

#define HEADWISE_UNPAREN(...) __VA_ARGS__
#define HEADWISE_PART_ROW(field, name, role, shape, fan_in, needs)                               \
  PartRow{TensorRow{field, name, Role::role, Alloc::kAlways, make_shape(HEADWISE_UNPAREN shape), \
                    0, fan_in},                                                                  \
          Needs::needs},
const PartRow kInputParams[] = {HEADWISE_INPUT_PARAMETERS(HEADWISE_PART_ROW)};
const PartRow kBlockParams[] = {HEADWISE_BLOCK_PARAMETERS(HEADWISE_PART_ROW)};
const PartRow kReadoutParams[] = {HEADWISE_READOUT_PARAMETERS(HEADWISE_PART_ROW)};
const PartRow kInputActs[] = {HEADWISE_INPUT_ACTIVATIONS(HEADWISE_PART_ROW)};
const PartRow kBlockActs[] = {HEADWISE_BLOCK_ACTIVATIONS(HEADWISE_PART_ROW)};
const PartRow kReadoutActs[] = {HEADWISE_READOUT_ACTIVATIONS(HEADWISE_PART_ROW)};
#undef HEADWISE_PART_ROW
#undef HEADWISE_UNPAREN

template <int N>
constexpr PartRows rows_of(const PartRow (&rows)[N]) {
  return PartRows{rows, N};
}

bool needed(Needs n, const ModelSpec& s, std::size_t part_tokens) {
  switch (n) {
    case Needs::kAlways:
      return true;
    case Needs::kBias:
      return s.bias;
    case Needs::kLearnedPositions:
      return s.position && s.position->learned_table;
    case Needs::kLayerNorm:
      return s.layer_norm;
    case Needs::kMlp:
      return s.mlp > 0;
    case Needs::kMlpBias:
      return s.mlp > 0 && s.bias;
    case Needs::kMlpLayerNorm:
      return s.mlp > 0 && s.layer_norm;
    case Needs::kGather:
      return part_tokens < s.tokens;
  }
  return false;
}

DimValues dims_for(const ModelSpec& s, std::uint64_t capacity, std::size_t part_tokens) {
  DimValues d{};
  attention_dims(s.attention(capacity, s.tokens - part_tokens),
                 &d);  // within validate_spec's limits
  d[int(Dim::kM)] = s.mlp;
  d[int(Dim::kV)] = s.vocab;
  d[int(Dim::kK)] = s.classes;
  return d;
}

int part_count(Part p, bool parameters) {
  const PartRows rows = parameters ? parameter_rows(p) : activation_rows(p);
  return rows.count;
}

// Index slot of (part, layer, field) in a table's index: input fields, blocks, then the readout.
std::size_t index_of(Part part, int layer, int field, int layers, bool parameters) {
  const std::size_t input = std::size_t(part_count(Part::kInput, parameters));
  const std::size_t block = std::size_t(part_count(Part::kBlock, parameters));
  switch (part) {
    case Part::kInput:
      return std::size_t(field);
    case Part::kBlock:
      return input + std::size_t(layer) * block + std::size_t(field);
    case Part::kReadout:
      break;
  }
  return input + std::size_t(layers) * block + std::size_t(field);
}

}  // namespace

PartRows parameter_rows(Part part) {
  switch (part) {
    case Part::kInput:
      return rows_of(kInputParams);
    case Part::kBlock:
      return rows_of(kBlockParams);
    case Part::kReadout:
      break;
  }
  return rows_of(kReadoutParams);
}

PartRows activation_rows(Part part) {
  switch (part) {
    case Part::kInput:
      return rows_of(kInputActs);
    case Part::kBlock:
      return rows_of(kBlockActs);
    case Part::kReadout:
      break;
  }
  return rows_of(kReadoutActs);
}

const char* slot_suffix(Slot s) {
  switch (s) {
    case Slot::kValue:
      return "";
    case Slot::kGradient:
      return ".grad";
    case Slot::kAdamM:
      return ".adamM";
    case Slot::kAdamV:
      break;
  }
  return ".adamV";
}

Status plan_stack(const ModelSpec& s, std::uint64_t capacity, StackTable* out) {
  StackTable t;
  const int L = static_cast<int>(s.layers);
  for (bool parameters : {true, false}) {
    std::vector<TableEntry>& entries = parameters ? t.parameters : t.activations;
    std::vector<int>& index = parameters ? t.parameter_index : t.activation_index;
    index.assign(index_of(Part::kReadout, 0, 0, L, parameters) +
                     std::size_t(part_count(Part::kReadout, parameters)),
                 -1);
    CheckedU64 floats = 0;
    std::uint32_t stream = kFirstStream;
    auto add_part = [&](Part part, int layer, std::size_t part_tokens, const std::string& prefix) {
      const PartRows rows = parameters ? parameter_rows(part) : activation_rows(part);
      const DimValues dims = dims_for(s, capacity, part_tokens);
      for (int f = 0; f < rows.count; ++f) {
        const PartRow& r = rows.rows[f];
        if (!needed(r.needs, s, part_tokens)) continue;
        const CheckedU64 size = row_floats(r.row, dims);
        const bool seeded = r.row.role == Role::kWeight || r.row.role == Role::kBias ||
                            r.row.role == Role::kEmbedding;
        index[index_of(part, layer, f, L, parameters)] = static_cast<int>(entries.size());
        entries.push_back(TableEntry{prefix + r.row.name, &r.row, part, layer, dims, floats.value(),
                                     size.value(), parameters && seeded ? stream++ : 0});
        floats += size;
      }
    };
    add_part(Part::kInput, 0, s.tokens, "");
    for (int l = 0; l < L; ++l) {
      add_part(Part::kBlock, l, s.out_tokens(std::size_t(l)), "blocks." + std::to_string(l) + ".");
    }
    add_part(Part::kReadout, 0, s.read_tokens(), "");
    if (!floats.ok())
      return Status::error("this model is too large: its size does not fit in 64 bits");
    (parameters ? t.parameter_floats : t.activation_floats) = floats.value();
  }
  if (!t.bytes().ok())
    return Status::error("this model is too large: its size does not fit in 64 bits");
  *out = std::move(t);
  return Status::ok();
}

CheckedU64 StackTable::bytes() const {
  return (CheckedU64(parameter_floats) * kSlotCount + activation_floats) * sizeof(float);
}

int StackTable::parameter(Part part, int layer, int field) const {
  const int L = static_cast<int>(
      (parameter_index.size() - std::size_t(kInputParamCount) - std::size_t(kReadoutParamCount)) /
      std::size_t(kBlockParamCount));
  return parameter_index[index_of(part, layer, field, L, true)];
}

int StackTable::activation(Part part, int layer, int field) const {
  const int L = static_cast<int>(
      (activation_index.size() - std::size_t(kInputActCount) - std::size_t(kReadoutActCount)) /
      std::size_t(kBlockActCount));
  return activation_index[index_of(part, layer, field, L, false)];
}

double forward_multiply_adds(const ModelSpec& s) {
  const AttentionShape a = s.attention(1, 0);
  const double tokens = double(s.tokens), width = double(s.d_model), concat = double(a.concat());
  const double hidden = double(s.mlp), classes = double(s.classes), hd = double(s.head_dim);
  const double heads = double(s.heads);
  double macs = 0;
  for (std::size_t l = 0; l < s.layers; ++l) {
    const double out = double(s.out_tokens(l));
    macs += 2 * tokens * width * double(a.kv_concat()) + out * width * concat  // k, v, q
            + 2 * heads * out * tokens * hd  // scores and context (every key: an upper bound)
            + out * concat * width + 2 * out * width * hidden;
  }
  return macs + double(s.read_tokens()) * width * classes;
}

}  // namespace headwise::layers
