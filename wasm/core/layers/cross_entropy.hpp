// Softmax cross-entropy over the rows of logits (rows, K), with a loss mask: the loss is the
// mean over the rows whose weight is 1 (rows weighted 0 are predicted but not trained on).
// Each row may belong to a group (a task's "first copy" and "repeat", say) whose loss and
// accuracy are summed apart.
#pragma once

#include <cstddef>
#include <cstdint>

namespace headwise::layers {

constexpr std::size_t kMaxGroups = 8;

struct LossSums {
  double loss = 0;                     // mean over the counted rows
  double loss_sum = 0;                 // the same, summed (before the division)
  std::size_t correct = 0;             // counted rows whose argmax is the target
  std::size_t counted = 0;             // rows with weight 1
  double group_loss[kMaxGroups] = {};  // summed, not averaged
  std::size_t group_correct[kMaxGroups] = {}, group_counted[kMaxGroups] = {};
};

// mask: one 0/1 byte per row (null: every row counts); groups: one byte per row (null: all 0).
// dlogits (may be null: no backward) gets d(mean loss)/d(logits), zero on uncounted rows.
// divisor: the count the gradient's mean is over (0: the counted rows here); a slice of a batch
// gives the whole batch's count, so that the slices' gradients sum to the batch's.
LossSums cross_entropy(std::size_t rows, std::size_t classes, const float* logits,
                       const int* targets, const std::uint8_t* mask, const std::uint8_t* groups,
                       float* dlogits, std::size_t divisor = 0);

}  // namespace headwise::layers
