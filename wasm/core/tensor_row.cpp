#include "tensor_row.hpp"

namespace headwise {

namespace {
#define HEADWISE_NAME(e, name) name,
constexpr const char* kDimSymbols[] = {HEADWISE_DIMS(HEADWISE_NAME) ""};
constexpr const char* kRoleNames[] = {HEADWISE_ROLES(HEADWISE_NAME)};
constexpr const char* kAllocNames[] = {HEADWISE_ALLOCS(HEADWISE_NAME)};
#undef HEADWISE_NAME
}  // namespace

const char* dim_symbol(Dim dim) { return kDimSymbols[int(dim)]; }
const char* role_name(Role role) { return kRoleNames[int(role)]; }
const char* alloc_name(Alloc alloc) { return kAllocNames[int(alloc)]; }

CheckedU64 row_floats(const TensorRow& row, const DimValues& dims) {
  CheckedU64 n = 1;
  for (int i = 0; i < row.shape.rank; ++i) {
    const Dim d = row.shape.dims[i];
    if (d == Dim::kNone) return CheckedU64::overflowed();  // a malformed row can never be allocated
    n *= dims[static_cast<int>(d)];
  }
  return n;
}

}  // namespace headwise
