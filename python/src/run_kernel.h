#pragma once
// Kernel Tuner's run_kernel: one config of a user's kernel run once, in this process, on the
// arguments of its spec; the arrays as they are afterwards (none for scalars).
#include <optional>
#include <string>
#include <vector>

namespace tt::python {

// Throws UserError for a config that is not valid or does not compile, EnvironmentError when
// OpenCL fails.
std::vector<std::optional<std::vector<unsigned char>>> RunKernelOnce(const std::string& spec_json,
                                                                     const std::string& base_dir,
                                                                     const std::string& device);

}  // namespace tt::python
