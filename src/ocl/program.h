#pragma once
#include <CL/cl.h>

#include <optional>
#include <string>
#include <string_view>

#include "ocl/buffer.h"
#include "ocl/cl_handle.h"

namespace tt::ocl {

class Kernel {
 public:
  explicit Kernel(cl_kernel kernel) : kernel_(kernel) {}
  void SetArg(unsigned index, const FloatBuffer& buffer);  // throws EnvironmentError
  // A scalar argument: `size` bytes of its value (a user's kernel's int or float).
  void SetArgBytes(unsigned index, const void* data, size_t size);  // throws EnvironmentError
  cl_kernel get() const { return kernel_.get(); }

 private:
  ClHandle<cl_kernel, clReleaseKernel> kernel_;
};

class Program {
 public:
  explicit Program(cl_program program) : program_(program) {}
  Kernel CreateKernel(std::string_view name) const;  // throws EnvironmentError (e.g. no such kernel)
  cl_program get() const { return program_.get(); }

 private:
  ClHandle<cl_program, clReleaseProgram> program_;
};

// A failed build is an expected outcome when tuning, so it is a value carrying the log.
struct BuildResult {
  std::optional<Program> program;  // empty when the build failed
  std::string log;                 // the compiler's build log (warnings too when it succeeded)
  bool ok() const { return program.has_value(); }
};

}  // namespace tt::ocl
