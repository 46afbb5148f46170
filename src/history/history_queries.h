#pragma once
// Lean, indexed reads of the history for warm starts, lookups and fallbacks: only the
// columns a search needs (config key, status, GFLOPS), across the workloads of one operator
// and across devices, over every version of a template that shares its knob schema.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/device_info.h"
#include "core/measure_result.h"
#include "core/workload.h"
#include "history/sqlite_history_store.h"

namespace tt {

// The fastest ok time one template reached on one workload, out of `trials` ok trials.
struct TemplateBest {
  Workload workload;
  std::string template_name;
  double time_s = 0;
  int64_t trials = 0;
};

class HistoryQueries {
 public:
  explicit HistoryQueries(const SqliteHistoryStore& store) : store_(store) {}

  // Every trial of one task (all runs, oldest first): what Seed needs, without logs and times.
  std::vector<LeanTrial> TaskTrials(const TaskIds& task) const;
  // The next three are SqliteHistoryStore's answers to TrialHistory's reads of other workloads.
  // Ids of the versions of template `name` recorded with `knob_schema`, plus the version
  // `source_hash` whatever its schema: trials of any of them fit this template's knobs.
  std::vector<int64_t> TemplateVersions(const std::string& name, const std::string& knob_schema,
                                        const std::string& source_hash) const;
  // Workloads of `op` with at least one ok trial in `scope`, by id.
  std::vector<RecordedWorkload> WorkloadsWithOkTrials(const std::string& op, const HistoryScope& scope) const;
  // The `limit` fastest ok trials of one workload in `scope`, fastest first.
  std::vector<LeanTrial> FastestTrials(int64_t workload_id, const HistoryScope& scope, int64_t limit) const;
  // Per workload of `op` and template (by name, every version), the fastest ok time on
  // `device`: which sketches won which workloads there.
  std::vector<TemplateBest> BestTimesByTemplate(const std::string& op, int64_t device) const;
  // The device id of a fingerprint; 0 when the device has no row.
  int64_t DeviceId(const std::string& fingerprint) const;
  // The workload id of a key; 0 when the workload has no row.
  int64_t WorkloadId(const std::string& key) const;
  // Every device of the database, by id.
  std::vector<std::pair<int64_t, DeviceInfo>> Devices() const;

 private:
  const SqliteHistoryStore& store_;
};

}  // namespace tt
