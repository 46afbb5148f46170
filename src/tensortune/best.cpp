#include "tensortune/best.h"

#include "core/errors.h"
#include "history/history_queries.h"
#include "ops/kernel_template.h"
#include "ranking/transfer.h"
#include "space/knob_schema.h"

namespace tt {
namespace {

struct Target {
  const KernelTemplate* kernel;
  int64_t device_id;
  const DeviceInfo* device;
};

std::vector<const KernelTemplate*> Templates(const BestQuery& query) {
  if (query.kernel_template.empty()) return ApplicableTemplates(query.workload);
  return {&PickTemplate(query.workload, query.kernel_template)};
}

BestConfig Describe(const Target& t, const ConfigSpace& space, const Config& config, const BestQuery& query) {
  BestConfig best;
  best.kernel_template = std::string(t.kernel->name());
  best.device = t.device->name;
  best.config_key = space.Key(config);
  best.config_json = space.ToJson(config);
  best.build_options = t.kernel->BuildOptions(query.workload, space, config);
  best.source_workload = query.workload.Key();
  return best;
}

// The fastest ok trial of this workload with this very template source on this device.
std::optional<BestConfig> Exact(const HistoryQueries& queries, const Target& t, const ConfigSpace& space,
                                int64_t workload_id, const BestQuery& query) {
  const auto versions = queries.TemplateVersions(std::string(t.kernel->name()), "", t.kernel->SourceHash());
  for (const LeanTrial& trial : queries.FastestTrials(workload_id, {versions, t.device_id}, 8)) {
    const auto config = space.FromKey(trial.config_key);
    if (!config || !space.IsValid(*config)) continue;
    BestConfig best = Describe(t, space, *config, query);
    best.gflops = trial.gflops;
    return best;
  }
  return std::nullopt;
}

// The best-ranked record of a similar workload that adapts to a valid config (the transfer
// tune-network's first round uses, fitted to the shape alike); its metric too.
std::optional<std::pair<BestConfig, double>> Fallback(const TrialHistory& history, const Target& t,
                                                      const ConfigSpace& space, const BestQuery& query) {
  const HistoryScope scope =
      TransferScope(history, std::string(t.kernel->name()), space, t.kernel->SourceHash(), t.device_id);
  const auto transferred = TransferConfigs(history, scope, query.workload, space, 1);
  if (transferred.empty()) return std::nullopt;
  const RankedRecord& r = transferred.front().source;
  Config config = transferred.front().config;
  t.kernel->FitToTheShape(query.workload, space, *t.device, config);
  BestConfig best = Describe(t, space, config, query);
  best.gflops = r.gflops;
  best.fallback = true;
  best.match_score = r.match_score;
  best.source_workload = r.workload.Key();
  return std::pair{best, r.metric};
}

}  // namespace

std::optional<BestConfig> FindBestConfig(const BestQuery& query) { return FindBestConfig(query, nullptr); }

std::optional<BestConfig> FindBestConfig(const BestQuery& query,
                                         const std::function<bool(const DeviceInfo&)>& accept_device) {
  auto store = SqliteHistoryStore::OpenReadOnly(query.db);
  const HistoryQueries queries(*store);
  const auto devices = queries.Devices();
  std::vector<const std::pair<int64_t, DeviceInfo>*> chosen;
  bool fragment_matched = false;
  for (const auto& d : devices) {
    if (!query.device.empty() && d.second.Fingerprint().find(query.device) == std::string::npos) continue;
    fragment_matched = true;
    if (!accept_device || accept_device(d.second)) chosen.push_back(&d);
  }
  if (!query.device.empty() && !fragment_matched)
    throw UserError("no device matching '" + query.device + "' in " + query.db);

  const int64_t workload_id = queries.WorkloadId(query.workload.Key());
  // The devices of this machine's history first; imported ones (AutoTVM targets, Kernel Tuner
  // GPUs) answer when those have nothing, as TopHub's records did for AutoTVM, or when
  // --device picks them.
  for (const bool imported : {false, true}) {
    std::optional<BestConfig> exact;
    std::optional<std::pair<BestConfig, double>> fallback;
    for (const KernelTemplate* kernel : Templates(query)) {
      for (const auto* device : chosen) {
        if (device->second.imported != imported) continue;
        const Target t{kernel, device->first, &device->second};
        // An imported device's limits are unknown: they constrain nothing.
        const ConfigSpace space = kernel->Space(query.workload, LimitsOf(device->second));
        if (workload_id != 0)
          if (auto e = Exact(queries, t, space, workload_id, query); e && (!exact || e->gflops > exact->gflops))
            exact = e;
        if (exact) continue;  // a measured best beats any fallback
        if (auto f = Fallback(*store, t, space, query); f && (!fallback || f->second > fallback->second)) fallback = f;
      }
    }
    if (exact) return exact;
    if (fallback) return fallback->first;
  }
  return std::nullopt;
}

}  // namespace tt
