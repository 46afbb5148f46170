#pragma once
// The worker's side of a user's kernel (tensortune-worker only): its arguments loaded from the
// staged spec (arrays of any element type, scalars), each config built with its -D options,
// launched once and checked against the answer (the given arrays, or what the reference config
// computed) within atol, then timed `iterations` times as Kernel Tuner does.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/measure_result.h"
#include "measure/worker_protocol.h"
#include "ocl/context.h"
#include "ops/user_kernel_spec.h"

namespace tt {

class UserKernelSession {
 public:
  explicit UserKernelSession(const ocl::Context& context) : context_(context) {}
  ~UserKernelSession();
  MeasureResult Handle(const WorkerRequest& request);  // throws for failures the caller maps to a status

 private:
  struct Argument {
    const UserKernelArg* spec = nullptr;
    std::vector<unsigned char> scalar;
    std::vector<float> initial;                // arrays: the contents before each checked launch
    std::optional<std::vector<float>> answer;  // arrays: what they must hold after it
    std::optional<ocl::FloatBuffer> buffer;
    std::vector<float> read_back;
  };
  // With `with_data`, the arguments' contents and answers too; without (a builder's), only
  // buffers of the right sizes, whose contents do not matter.
  void Load(const std::string& staged_path, bool with_data);
  void Bind(ocl::Kernel& kernel);
  void ResetArrays();
  // Checks every array with an answer; the first element off by more than atol + 1e-5 |answer|.
  std::optional<std::string> FindMismatch();

  const ocl::Context& context_;
  std::string loaded_;
  bool loaded_data_ = false;
  UserKernelSpec spec_;
  std::vector<std::unique_ptr<Argument>> args_;
};

}  // namespace tt
