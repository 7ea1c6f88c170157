// mulberry32: a 32-bit state, one double in [0, 1) per call. C++, JavaScript (web/train-task.js)
// and Python (bench/train/task.py) implement it identically, so peers train on the same batches.
#pragma once

#include <cstdint>

namespace headwise::tasks {

class Mulberry32 {
 public:
  explicit Mulberry32(std::uint32_t seed) : state_(seed) {}
  double next();
  // floor(next() * n): a whole number in [0, n).
  int below(int n) { return static_cast<int>(next() * n); }
  // The whole state: a generator set to another's state draws what that one draws next.
  std::uint32_t state() const { return state_; }
  void set_state(std::uint32_t state) { state_ = state; }

 private:
  std::uint32_t state_;
};

// The seed of a task's held-out set: (seed XOR 0x5EED5EED) mod 2^32.
std::uint32_t held_out_seed(std::uint32_t seed);

}  // namespace headwise::tasks
