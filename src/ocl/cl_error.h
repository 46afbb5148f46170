#pragma once
#include <CL/cl.h>

#include <string_view>

namespace tt::ocl {

const char* ClErrorName(cl_int code);  // "CL_OUT_OF_RESOURCES"; "unknown OpenCL error" otherwise
// Throws EnvironmentError("<what> failed: CL_...") unless code is CL_SUCCESS.
void CheckCl(cl_int code, std::string_view what);

}  // namespace tt::ocl
