#include "classifier_table.hpp"

namespace headwise::train {

namespace {

constexpr Dim V = Dim::kV, T = Dim::kT, D = Dim::kD, C = Dim::kC, M = Dim::kM, K = Dim::kK,
              none = Dim::kNone;

#define HEADWISE_VALUE_ROW(id, name, role, shape, fan_in) \
  TensorRow{id, name, Role::role, Alloc::kAlways, make_shape shape, kStreamBase + id, fan_in},
#define HEADWISE_DERIVED_ROW(id, name, role, shape, fan_in, slot, suffix, slot_role) \
  TensorRow{static_cast<int>(Slot::slot) * kParamCount + id,                         \
            name suffix,                                                             \
            Role::slot_role,                                                         \
            Alloc::kAlways,                                                          \
            make_shape shape,                                                        \
            0,                                                                       \
            none},
#define HEADWISE_GRADIENT_ROW(...) HEADWISE_DERIVED_ROW(__VA_ARGS__, kGradient, ".grad", kGradient)
#define HEADWISE_ADAM_M_ROW(...) \
  HEADWISE_DERIVED_ROW(__VA_ARGS__, kAdamM, ".adamM", kOptimizerState)
#define HEADWISE_ADAM_V_ROW(...) \
  HEADWISE_DERIVED_ROW(__VA_ARGS__, kAdamV, ".adamV", kOptimizerState)

const TensorRow kRows[] = {HEADWISE_CLASSIFIER_PARAMETERS(HEADWISE_VALUE_ROW)
                               HEADWISE_CLASSIFIER_PARAMETERS(HEADWISE_GRADIENT_ROW)
                                   HEADWISE_CLASSIFIER_PARAMETERS(HEADWISE_ADAM_M_ROW)
                                       HEADWISE_CLASSIFIER_PARAMETERS(HEADWISE_ADAM_V_ROW)};
static_assert(sizeof(kRows) / sizeof(kRows[0]) == kSlotCount * kParamCount, "four rows per tensor");

}  // namespace

const TensorRow* classifier_table() { return kRows; }

}  // namespace headwise::train
