// Size arithmetic that cannot wrap: every product and sum of tensor sizes goes through this, in
// 64 bits, and an overflow is remembered so that the caller can refuse the size with a message.
#pragma once

#include <cstdint>

namespace headwise {

class CheckedU64 {
 public:
  constexpr CheckedU64(std::uint64_t value = 0) : value_(value) {}  // NOLINT: implicit on purpose

  static constexpr CheckedU64 overflowed() {
    CheckedU64 r;
    r.overflow_ = true;
    return r;
  }
  constexpr bool ok() const { return !overflow_; }
  // Only meaningful when ok().
  constexpr std::uint64_t value() const { return value_; }

  friend constexpr CheckedU64 operator*(CheckedU64 a, CheckedU64 b) {
    CheckedU64 r;
    r.overflow_ =
        a.overflow_ || b.overflow_ || __builtin_mul_overflow(a.value_, b.value_, &r.value_);
    return r;
  }
  friend constexpr CheckedU64 operator+(CheckedU64 a, CheckedU64 b) {
    CheckedU64 r;
    r.overflow_ =
        a.overflow_ || b.overflow_ || __builtin_add_overflow(a.value_, b.value_, &r.value_);
    return r;
  }
  CheckedU64& operator*=(CheckedU64 b) { return *this = *this * b; }
  CheckedU64& operator+=(CheckedU64 b) { return *this = *this + b; }

 private:
  std::uint64_t value_ = 0;
  bool overflow_ = false;
};

}  // namespace headwise
