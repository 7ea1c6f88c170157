// An owned float array whose allocation can fail without aborting (malloc, checked).
#pragma once

#include <cstddef>

namespace headwise {

class FloatBuffer {
 public:
  FloatBuffer() = default;
  ~FloatBuffer();
  FloatBuffer(const FloatBuffer&) = delete;
  FloatBuffer& operator=(const FloatBuffer&) = delete;
  FloatBuffer(FloatBuffer&& other) noexcept;
  FloatBuffer& operator=(FloatBuffer&& other) noexcept;

  // Replaces the contents with `size` zeros. Returns false (and holds nothing) if memory ran out.
  bool allocate(std::size_t size);
  void release();

  float* data() { return data_; }
  const float* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  float* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace headwise
