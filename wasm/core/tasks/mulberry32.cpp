#include "mulberry32.hpp"

namespace headwise::tasks {

double Mulberry32::next() {
  state_ += 0x6D2B79F5u;
  std::uint32_t t = state_;
  t = (t ^ (t >> 15)) * (t | 1u);
  t = (t + (t ^ (t >> 7)) * (t | 61u)) ^ t;
  return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
}

std::uint32_t held_out_seed(std::uint32_t seed) { return seed ^ 0x5EED5EEDu; }

}  // namespace headwise::tasks
