// An owned array of a trivially copyable type whose allocation can fail without aborting
// (calloc, checked): what a std::vector cannot promise in a module built without exceptions.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <type_traits>
#include <utility>

namespace headwise {

template <typename T>
class CheckedArray {
  static_assert(std::is_trivially_copyable_v<T>, "plain data only");

 public:
  CheckedArray() = default;
  ~CheckedArray() { std::free(data_); }
  CheckedArray(const CheckedArray&) = delete;
  CheckedArray& operator=(const CheckedArray&) = delete;
  CheckedArray(CheckedArray&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}

  // Replaces the contents with `size` zeros; false (holding nothing) if memory ran out.
  bool allocate(std::size_t size) {
    std::free(data_);
    data_ = nullptr;
    size_ = 0;
    if (size == 0) return true;
    data_ = static_cast<T*>(std::calloc(size, sizeof(T)));
    if (!data_) return false;
    size_ = size;
    return true;
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace headwise
