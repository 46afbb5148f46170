#include "measure/device_measurer.h"

#include <chrono>
#include <cmath>
#include <functional>
#include <string>
#include <thread>

#include "core/errors.h"
#include "measure/fake_measurer.h"
#include "measure/opencl_measurer.h"

namespace tt {
namespace {

DeviceMeasurerFactory& Factory() {
  static DeviceMeasurerFactory factory;
  return factory;
}

class LocalOpenClMeasurer : public DeviceMeasurer {
 public:
  explicit LocalOpenClMeasurer(const OpenClMeasurerOptions& options) : measurer_(options) {}
  const DeviceInfo& device() const override { return measurer_.device(); }
  MeasuredBatch Measure(const MeasureTask& task, const std::vector<Config>& batch,
                        const std::atomic<bool>* stop) override {
    return measurer_.Measure(task, batch, stop);
  }

 private:
  OpenClMeasurer measurer_;
};

// A smooth landscape with one peak per knob, so that tuners have something to find: each
// knob's value position (0..1) scores by its distance from a peak that its name decides.
double FakeGflops(const ConfigSpace& space, const Config& config) {
  double score = 1;
  for (size_t i = 0; i < space.num_knobs(); ++i) {
    const Knob& knob = space.knob(i);
    if (knob.size() < 2) continue;
    const double position = static_cast<double>(config[i]) / static_cast<double>(knob.size() - 1);
    const double peak = static_cast<double>(std::hash<std::string>{}(knob.name()) % 1000) / 999.0;
    score *= 1 - 0.6 * std::abs(position - peak);
  }
  return 1 + 99 * score;
}

class FakeDeviceMeasurer : public DeviceMeasurer {
 public:
  explicit FakeDeviceMeasurer(double latency_s) : latency_s_(latency_s), fake_(FakeGflops) {
    device_.platform = "tensortune";
    device_.name = "fake (simulated measurer)";
    device_.driver_version = "1";
    device_.type = "other";
    device_.compute_units = 1;
    device_.max_work_group_size = 1024;
    device_.local_mem_bytes = 64 * 1024;
    device_.global_mem_bytes = size_t{1} << 30;
    device_.native_float_width = 8;
  }
  const DeviceInfo& device() const override { return device_; }
  // Each config waits out the latency first, as a device would take it, and a stop ends the
  // batch there (the config in flight is abandoned).
  MeasuredBatch Measure(const MeasureTask& task, const std::vector<Config>& batch,
                        const std::atomic<bool>* stop) override {
    MeasuredBatch measured;
    for (const Config& config : batch) {
      if (task.space->IsValid(config) && !Wait(stop)) {
        measured.end = MeasuredBatch::End::kStopped;
        break;
      }
      MeasuredBatch one = fake_.Measure(task, {config});
      one.results.front().wall_s = task.space->IsValid(config) ? latency_s_ : 0;
      measured.results.push_back(std::move(one.results.front()));
    }
    return measured;
  }

 private:
  bool Wait(const std::atomic<bool>* stop) const {
    using Clock = std::chrono::steady_clock;
    const auto until =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(latency_s_));
    while (Clock::now() < until) {
      if (stop && stop->load()) return false;
      std::this_thread::sleep_until(std::min(until, Clock::now() + std::chrono::milliseconds(20)));
    }
    return !(stop && stop->load());
  }

  double latency_s_;
  FakeMeasurer fake_;
  DeviceInfo device_;
};

}  // namespace

std::optional<double> ParseFakeDeviceSpec(const std::string& spec) {
  if (spec != "fake" && spec.rfind("fake:", 0) != 0) return std::nullopt;
  if (spec == "fake") return 0.0;
  const std::string ms = spec.substr(5);
  size_t used = 0;
  double value = -1;
  try {
    value = std::stod(ms, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (ms.empty() || used != ms.size() || !std::isfinite(value) || value < 0 || value > 3.6e6)
    throw UserError("--device " + spec + ": expected fake:<milliseconds per config>, from 0 to 3600000");
  return value / 1e3;
}

void SetDeviceMeasurerFactory(DeviceMeasurerFactory factory) { Factory() = std::move(factory); }

std::unique_ptr<DeviceMeasurer> MakeDeviceMeasurer(const OpenClMeasurerOptions& options) {
  if (Factory()) return Factory()(options);
  return MakeLocalMeasurer(options);
}

std::unique_ptr<DeviceMeasurer> MakeLocalMeasurer(const OpenClMeasurerOptions& options) {
  if (const auto latency_s = ParseFakeDeviceSpec(options.device_spec))
    return std::make_unique<FakeDeviceMeasurer>(*latency_s);
  return std::make_unique<LocalOpenClMeasurer>(options);
}

}  // namespace tt
