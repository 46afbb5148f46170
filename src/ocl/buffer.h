#pragma once
#include <CL/cl.h>

#include <cstddef>

#include "ocl/cl_handle.h"

namespace tt::ocl {

// A device buffer of floats; created, written and read through a Context.
class FloatBuffer {
 public:
  FloatBuffer(cl_mem mem, size_t elements) : mem_(mem), elements_(elements) {}
  cl_mem get() const { return mem_.get(); }
  size_t elements() const { return elements_; }

 private:
  ClHandle<cl_mem, clReleaseMemObject> mem_;
  size_t elements_ = 0;
};

}  // namespace tt::ocl
