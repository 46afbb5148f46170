#include "ocl/program.h"

#include <string>

#include "ocl/cl_error.h"

namespace tt::ocl {

void Kernel::SetArg(unsigned index, const FloatBuffer& buffer) {
  const cl_mem mem = buffer.get();
  CheckCl(clSetKernelArg(kernel_.get(), index, sizeof(cl_mem), &mem), "clSetKernelArg(" + std::to_string(index) + ")");
}

void Kernel::SetArgBytes(unsigned index, const void* data, size_t size) {
  CheckCl(clSetKernelArg(kernel_.get(), index, size, data), "clSetKernelArg(" + std::to_string(index) + ")");
}

Kernel Program::CreateKernel(std::string_view name) const {
  cl_int status = CL_SUCCESS;
  const std::string kernel_name(name);
  cl_kernel kernel = clCreateKernel(program_.get(), kernel_name.c_str(), &status);
  CheckCl(status, "clCreateKernel(" + kernel_name + ")");
  return Kernel(kernel);
}

}  // namespace tt::ocl
