#include "float_buffer.hpp"

#include <cstdlib>
#include <utility>

namespace headwise {

FloatBuffer::~FloatBuffer() { release(); }

FloatBuffer::FloatBuffer(FloatBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

FloatBuffer& FloatBuffer::operator=(FloatBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

bool FloatBuffer::allocate(std::size_t size) {
  release();
  if (size == 0) return true;
  if (size > static_cast<std::size_t>(-1) / sizeof(float)) return false;
  data_ = static_cast<float*>(std::calloc(size, sizeof(float)));
  if (data_ == nullptr) return false;
  size_ = size;
  return true;
}

void FloatBuffer::release() {
  std::free(data_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace headwise
