#pragma once
// A TrialHistory held in memory: what the engine (schedule/) and the warm starts (warmstart/)
// read and write, with the rules SqliteHistoryStore keeps (claims, transient failures,
// template versions), so that their tests need no database.
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "history/measured_rule.h"
#include "history/trial_history.h"

namespace tt::testing {

class InMemoryHistory : public TrialHistory {
 public:
  struct Run {
    TaskIds task;
    RunInfo info;
    std::string status = "running";
    std::string error;
  };

  // The ids of a task, its workload, template and device added on first sight (by key, source
  // hash and fingerprint), as SqliteHistoryStore::EnsureTask does.
  TaskIds AddTask(const Workload& workload, const TemplateRef& kernel_template, const DeviceInfo& device) {
    return {IdOf(workloads_, workload, [](const Workload& a, const Workload& b) { return a.Key() == b.Key(); }),
            IdOf(templates_, kernel_template,
                 [](const TemplateRef& a, const TemplateRef& b) {
                   return a.name == b.name && a.source_hash == b.source_hash;
                 }),
            IdOf(devices_, device,
                 [](const DeviceInfo& a, const DeviceInfo& b) { return a.Fingerprint() == b.Fingerprint(); })};
  }
  const Run& run(int64_t run_id) const { return runs_.at(static_cast<size_t>(run_id - 1)); }
  size_t run_count() const { return runs_.size(); }
  std::vector<TrialRecord> Trials(const TaskIds& task) const {  // oldest first
    std::vector<TrialRecord> trials;
    for (const Trial& t : trials_)
      if (t.task == task) trials.push_back(t.record);
    return trials;
  }

  int64_t BeginRun(const TaskIds& task, const RunInfo& info) override {
    runs_.push_back({task, info, "running", ""});
    return static_cast<int64_t>(runs_.size());
  }

  std::vector<bool> Claim(int64_t run_id, const TaskIds& task, const std::vector<std::string>& keys) override {
    std::vector<bool> claimed;
    for (const std::string& key : keys) {
      const bool recorded = std::any_of(trials_.begin(), trials_.end(), [&](const Trial& t) {
        return t.task == task && t.record.config_key == key && !t.record.result.transient;
      });
      const auto held = claims_.find(ClaimKey(task, key));
      const bool held_elsewhere =
          held != claims_.end() && held->second != run_id && run(held->second).status == "running";
      claimed.push_back(!recorded && !held_elsewhere);
      if (claimed.back()) claims_[ClaimKey(task, key)] = run_id;
    }
    return claimed;
  }

  void RecordBatch(int64_t run_id, const TaskIds& task, const std::vector<TrialRecord>& records) override {
    for (TrialRecord record : records) {
      claims_.erase(ClaimKey(task, record.config_key));
      record.run_id = run_id;
      trials_.push_back({task, std::move(record)});
    }
  }

  bool Retime(const TaskIds& task, const std::string& config_key, const MeasureResult& again) override {
    for (Trial& t : trials_)
      if (t.task == task && t.record.config_key == config_key && !t.record.result.transient)
        if (auto merged = RetimedResult(t.record.result, again)) {
          t.record.result = std::move(*merged);
          return true;
        }
    return false;
  }

  void ReleaseClaims(int64_t run_id) override {
    std::erase_if(claims_, [&](const auto& claim) { return claim.second == run_id; });
  }

  void EndRun(int64_t run_id, std::string_view status, std::string_view error = {}) override {
    runs_.at(static_cast<size_t>(run_id - 1)).status = status;
    runs_.at(static_cast<size_t>(run_id - 1)).error = error;
  }

  std::vector<MeasuredConfig> MeasuredConfigs(const TaskIds& task, bool retry_transient = false) const override {
    std::vector<MeasuredConfig> measured;
    MeasuredRule rule(retry_transient);  // the database's rule
    for (const Trial& t : trials_) {
      if (!(t.task == task)) continue;
      const MeasureResult& r = t.record.result;
      if (!rule.Counts(t.record.config_key, r.status, r.transient)) continue;
      measured.push_back({t.record.config_key, r.status, r.gflops, r.time_s});
    }
    return measured;
  }

  std::optional<TrialRecord> Best(const TaskIds& task) const override {
    std::optional<TrialRecord> best;
    for (const Trial& t : trials_)
      if (t.task == task && t.record.result.ok() && (!best || t.record.result.time_s < best->result.time_s))
        best = t.record;
    return best;
  }

  std::vector<std::pair<TaskIds, DeviceInfo>> RecordedTasks(const Workload& workload,
                                                            const TemplateRef& kernel_template) const override {
    std::vector<std::pair<TaskIds, DeviceInfo>> recorded;
    for (const Trial& t : trials_) {
      const TemplateRef& ref = Row(templates_, t.task.kernel_template);
      const bool same = Row(workloads_, t.task.workload).Key() == workload.Key() && ref.name == kernel_template.name &&
                        ref.source_hash == kernel_template.source_hash;
      const bool listed =
          std::any_of(recorded.begin(), recorded.end(), [&](const auto& r) { return r.first == t.task; });
      if (same && !listed) recorded.emplace_back(t.task, Row(devices_, t.task.device));
    }
    return recorded;
  }

  std::vector<int64_t> TemplateVersions(const std::string& name, const std::string& knob_schema,
                                        const std::string& source_hash) const override {
    std::vector<int64_t> ids;
    for (size_t i = 0; i < templates_.size(); ++i) {
      const TemplateRef& t = templates_[i];
      if (t.name == name && ((!knob_schema.empty() && t.knob_schema == knob_schema) || t.source_hash == source_hash))
        ids.push_back(static_cast<int64_t>(i + 1));
    }
    return ids;
  }

  std::vector<RecordedWorkload> WorkloadsWithOkTrials(const std::string& op, const HistoryScope& scope) const override {
    std::vector<RecordedWorkload> workloads;
    for (size_t i = 0; i < workloads_.size(); ++i) {
      const auto id = static_cast<int64_t>(i + 1);
      if (workloads_[i].op == op && !FastestTrials(id, scope, 1).empty()) workloads.push_back({id, workloads_[i]});
    }
    return workloads;
  }

  std::vector<LeanTrial> FastestTrials(int64_t workload_id, const HistoryScope& scope, int64_t limit) const override {
    std::vector<LeanTrial> fastest;
    for (const Trial& t : trials_) {
      const bool in_scope =
          std::count(scope.template_ids.begin(), scope.template_ids.end(), t.task.kernel_template) > 0 &&
          (scope.device == 0 || scope.device == t.task.device);
      if (t.task.workload == workload_id && in_scope && t.record.result.ok())
        fastest.push_back({t.record.config_key, MeasureStatus::kOk, t.record.result.gflops});
    }
    std::stable_sort(fastest.begin(), fastest.end(),
                     [](const LeanTrial& a, const LeanTrial& b) { return a.gflops > b.gflops; });
    if (static_cast<int64_t>(fastest.size()) > limit) fastest.resize(static_cast<size_t>(std::max<int64_t>(limit, 0)));
    return fastest;
  }

 private:
  struct Trial {
    TaskIds task;
    TrialRecord record;
  };

  template <typename T, typename Same>
  static int64_t IdOf(std::vector<T>& rows, const T& row, Same same) {
    for (size_t i = 0; i < rows.size(); ++i)
      if (same(rows[i], row)) return static_cast<int64_t>(i + 1);
    rows.push_back(row);
    return static_cast<int64_t>(rows.size());
  }
  template <typename T>
  static const T& Row(const std::vector<T>& rows, int64_t id) {
    return rows.at(static_cast<size_t>(id - 1));
  }
  static std::string ClaimKey(const TaskIds& task, const std::string& key) {
    return std::to_string(task.workload) + "/" + std::to_string(task.kernel_template) + "/" +
           std::to_string(task.device) + "/" + key;
  }

  std::vector<Workload> workloads_;
  std::vector<TemplateRef> templates_;
  std::vector<DeviceInfo> devices_;
  std::vector<Run> runs_;
  std::vector<Trial> trials_;
  std::map<std::string, int64_t> claims_;  // (task, config key) -> the run holding it
};

}  // namespace tt::testing
