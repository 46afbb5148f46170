#include "ops/selftest_template.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace tt {
namespace {

class SelftestFaults final : public KernelTemplate {
 public:
  std::string_view name() const override { return "selftest_faults"; }
  std::string_view op() const override { return "selftest"; }
  std::string_view kernel_name() const override { return "selftest_faults"; }
  std::string_view source() const override { return KernelSource("selftest_faults.cl"); }
  bool listed() const override { return false; }

  ConfigSpace Space(const Workload& w, const DeviceLimits&) const override {
    ConfigSpace space;
    std::vector<int64_t> behaviours = {0, 1, 2, 3, 4};
    if (w.Dim("n") > 64) behaviours.push_back(static_cast<int64_t>(SelftestBehaviour::kSlow));
    space.AddKnob(Knob::Categorical("behaviour", behaviours));
    return space;
  }

  std::string BuildOptions(const Workload&, const ConfigSpace& space, const Config& config) const override {
    return "-D BEHAVIOUR=" + std::to_string(space.Scalar(config, "behaviour"));
  }

  LaunchGeometry Geometry(const Workload& w, const ConfigSpace&, const Config&) const override {
    LaunchGeometry g;
    g.global[0] = static_cast<size_t>(w.Dim("n"));
    g.local[0] = std::gcd(g.global[0], size_t{64});  // a work-group size that divides n
    return g;
  }

  std::vector<BufferSpec> Buffers(const Workload& w) const override {
    const auto n = static_cast<size_t>(w.Dim("n"));
    return {{"in", n, false}, {"out", n, true}};
  }

  double Flops(const Workload& w) const override { return static_cast<double>(w.Dim("n")); }

  void Reference(const Workload& w, const std::vector<const float*>& inputs, float* output) const override {
    std::transform(inputs[0], inputs[0] + w.Dim("n"), output, [](float x) { return 2.0f * x; });
  }
};

}  // namespace

const KernelTemplate& SelftestFaultsTemplate() {
  static const SelftestFaults instance;
  return instance;
}

}  // namespace tt
