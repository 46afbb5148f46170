#include "run_kernel.h"

#include <cstring>

#include "core/errors.h"
#include "ocl/context.h"
#include "ocl/devices.h"
#include "ops/user_kernel_template.h"

namespace tt::python {

std::vector<std::optional<std::vector<unsigned char>>> RunKernelOnce(const std::string& spec_json,
                                                                     const std::string& base_dir,
                                                                     const std::string& device) {
  const UserKernelSpec spec = ParseUserKernelSpec(spec_json, base_dir);
  const UserKernelTemplate kernel(spec);
  const Workload workload = kernel.ProblemWorkload();
  ocl::Context context(ocl::SelectDevice(device));
  const DeviceInfo& info = context.device();
  const ConfigSpace space =
      kernel.Space(workload, {info.max_work_group_size, info.local_mem_bytes, info.native_float_width});
  const Config config(space.num_knobs(), 0);  // one value per parameter
  if (const auto why = space.WhyInvalid(config)) throw UserError("the parameters are not valid: " + *why);
  const ocl::BuildResult build = context.Build(spec.source, kernel.BuildOptions(workload, space, config));
  if (!build.ok()) throw UserError("the kernel does not compile:\n" + build.log.substr(0, 4000));
  ocl::Kernel k = build.program->CreateKernel(spec.kernel_name);
  std::vector<std::optional<ocl::FloatBuffer>> buffers;
  std::vector<std::vector<float>> host;  // arrays, padded to whole floats
  for (size_t i = 0; i < spec.arguments.size(); ++i) {
    const UserKernelArg& a = spec.arguments[i];
    if (a.scalar) {
      const std::vector<unsigned char> bytes = ScalarBytes(a);
      k.SetArgBytes(static_cast<unsigned>(i), bytes.data(), bytes.size());
      buffers.emplace_back();
      host.emplace_back();
      continue;
    }
    const std::vector<unsigned char> bytes = ArgumentBytes(a, a.data, i);
    std::vector<float> floats((bytes.size() + sizeof(float) - 1) / sizeof(float), 0.0f);
    std::memcpy(floats.data(), bytes.data(), bytes.size());
    buffers.emplace_back(context.CreateBuffer(floats.size()));
    context.Write(*buffers.back(), floats);
    k.SetArg(static_cast<unsigned>(i), *buffers.back());
    host.push_back(std::move(floats));
  }
  const LaunchGeometry g = kernel.Geometry(workload, space, config);
  context.Launch(k, g.dims, g.global, g.local);
  std::vector<std::optional<std::vector<unsigned char>>> outputs;
  for (size_t i = 0; i < spec.arguments.size(); ++i) {
    if (!buffers[i]) {
      outputs.emplace_back();
      continue;
    }
    context.Read(*buffers[i], host[i]);
    std::vector<unsigned char> bytes(spec.arguments[i].elements * spec.arguments[i].element_bytes);
    std::memcpy(bytes.data(), host[i].data(), bytes.size());
    outputs.emplace_back(std::move(bytes));
  }
  return outputs;
}

}  // namespace tt::python
