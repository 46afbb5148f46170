#pragma once
#include <CL/cl.h>

#include <utility>

namespace tt::ocl {

// Owns one reference to an OpenCL object; move-only.
template <typename T, cl_int (*Release)(T)>
class ClHandle {
 public:
  ClHandle() = default;
  explicit ClHandle(T handle) : handle_(handle) {}
  ClHandle(ClHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  ClHandle& operator=(ClHandle&& other) noexcept {
    if (this != &other) {
      Reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  ~ClHandle() { Reset(); }

  T get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

 private:
  void Reset() {
    if (handle_) Release(handle_);
    handle_ = nullptr;
  }
  T handle_ = nullptr;
};

}  // namespace tt::ocl
