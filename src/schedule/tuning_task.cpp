#include "schedule/tuning_task.h"

#include "space/knob_schema.h"

namespace tt {
namespace {

class Stopwatch {
 public:
  explicit Stopwatch(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~Stopwatch() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

TemplateRef TemplateRefOf(const KernelTemplate& kernel, const ConfigSpace& space) {
  return {std::string(kernel.name()), std::string(kernel.op()), kernel.SourceHash(), KnobSchema(space)};
}

TuningTask::TuningTask(const KernelTemplate* kernel, Workload workload, ConfigSpace space,
                       const MakeTunerFn& make_tuner)
    : kernel_(kernel), workload_(std::move(workload)), space_(std::make_unique<ConfigSpace>(std::move(space))) {
  if (make_tuner) StartTuner(make_tuner);
}

void TuningTask::StartTuner(const MakeTunerFn& make_tuner) {
  Stopwatch watch(tuner_seconds_);
  tuner_ = make_tuner(*space_);
}

MeasureTask TuningTask::measure_task() const { return {kernel_, workload_, space_.get(), best_ ? best_->time_s : 0}; }

size_t TuningTask::Seed(const std::vector<Observation>& history) {
  Stopwatch watch(tuner_seconds_);
  tuner_->Seed(history);
  return history.size();
}

void TuningTask::NoteBest(const std::optional<TaskBest>& best) {
  if (best && (!best_ || best->time_s < best_->time_s)) best_ = best;
}

std::vector<Config> TuningTask::Propose(size_t max_size) {
  Stopwatch watch(tuner_seconds_);
  return tuner_->NextBatch(max_size);
}

void TuningTask::Learn(const std::vector<Config>& configs, const std::vector<MeasureResult>& results) {
  std::vector<Observation> observations;
  for (size_t i = 0; i < results.size(); ++i) {
    const MeasureResult& r = results[i];
    observations.push_back({configs[i], r.status, r.ok() ? r.gflops : 0});
    if (r.ok() && r.time_s > 0 && (!best_ || r.time_s < best_->time_s))
      best_ = TaskBest{space_->Key(configs[i]), r.time_s, r.gflops};
  }
  measured_ += static_cast<int64_t>(results.size());
  Stopwatch watch(tuner_seconds_);
  tuner_->Update(observations);
}

}  // namespace tt
