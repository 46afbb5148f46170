#include "history/history_queries.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <SQLiteCpp/VariadicBind.h>

#include <algorithm>

#include "history/sqlite_rows.h"

namespace tt {
namespace {

// "?, ?, ?" for an IN list of n values.
std::string Placeholders(size_t n) {
  std::string text;
  for (size_t i = 0; i < n; ++i) text += i ? ", ?" : "?";
  return text;
}

// Binds the scope's template ids (and device when set) from parameter `first` on.
int BindScope(SQLite::Statement& q, const HistoryScope& scope, int first) {
  for (const int64_t id : scope.template_ids) q.bind(first++, id);
  if (scope.device != 0) q.bind(first++, scope.device);
  return first;
}

std::string ScopeFilter(const HistoryScope& scope) {
  std::string sql = " AND template_id IN (" + Placeholders(scope.template_ids.size()) + ")";
  if (scope.device != 0) sql += " AND device_id = ?";
  return sql;
}

LeanTrial ReadLean(SQLite::Statement& q) {
  const std::string status = q.getColumn(1).getString();
  const auto parsed = ParseMeasureStatus(status);
  if (!parsed) throw UnreadableValue("a trial of status '" + status + "'");
  return {q.getColumn(0).getString(), *parsed, q.getColumn(2).getDouble()};
}

}  // namespace

std::vector<LeanTrial> HistoryQueries::TaskTrials(const TaskIds& task) const {
  return Translated(store_.path(), [&] {
    SQLite::Statement q(store_.connection(),
                        "SELECT config_key, status, gflops FROM trials "
                        "WHERE workload_id = ? AND template_id = ? AND device_id = ? ORDER BY id");
    SQLite::bind(q, task.workload, task.kernel_template, task.device);
    std::vector<LeanTrial> trials;
    while (q.executeStep()) trials.push_back(ReadLean(q));
    return trials;
  });
}

std::vector<int64_t> HistoryQueries::TemplateVersions(const std::string& name, const std::string& knob_schema,
                                                      const std::string& source_hash) const {
  return Translated(store_.path(), [&] {
    SQLite::Statement q(store_.connection(),
                        "SELECT id FROM kernel_templates WHERE name = ? AND "
                        "((knob_schema = ? AND knob_schema <> '') OR source_hash = ?) ORDER BY id");
    SQLite::bind(q, name, knob_schema, source_hash);
    std::vector<int64_t> ids;
    while (q.executeStep()) ids.push_back(q.getColumn(0).getInt64());
    return ids;
  });
}

std::vector<RecordedWorkload> HistoryQueries::WorkloadsWithOkTrials(const std::string& op,
                                                                    const HistoryScope& scope) const {
  if (scope.template_ids.empty()) return {};
  return Translated(store_.path(), [&] {
    // One probe of trials_ok_by_gflops per workload of the operator.
    SQLite::Statement q(store_.connection(),
                        "SELECT w.id, w.key FROM workloads w WHERE w.op = ? AND EXISTS (SELECT 1 FROM "
                        "trials WHERE workload_id = w.id AND status = 'ok'" +
                            ScopeFilter(scope) + ") ORDER BY w.id");
    q.bind(1, op);
    BindScope(q, scope, 2);
    std::vector<RecordedWorkload> workloads;
    while (q.executeStep())
      workloads.push_back({q.getColumn(0).getInt64(), Workload::FromKey(q.getColumn(1).getString())});
    return workloads;
  });
}

std::vector<TemplateBest> HistoryQueries::BestTimesByTemplate(const std::string& op, int64_t device) const {
  return Translated(store_.path(), [&] {
    SQLite::Statement q(
        store_.connection(),
        "SELECT w.key, k.name, min(t.time_s), count(*) FROM workloads w "
        "JOIN trials t ON t.workload_id = w.id AND t.device_id = ? AND t.status = 'ok' AND t.time_s > 0 "
        "JOIN kernel_templates k ON k.id = t.template_id "
        "WHERE w.op = ? GROUP BY w.id, k.name ORDER BY w.id, k.name");
    q.bind(1, device);
    q.bind(2, op);
    std::vector<TemplateBest> best;
    while (q.executeStep())
      best.push_back({Workload::FromKey(q.getColumn(0).getString()), q.getColumn(1).getString(),
                      q.getColumn(2).getDouble(), q.getColumn(3).getInt64()});
    return best;
  });
}

std::vector<LeanTrial> HistoryQueries::FastestTrials(int64_t workload_id, const HistoryScope& scope,
                                                     int64_t limit) const {
  if (scope.template_ids.empty() || limit <= 0) return {};
  return Translated(store_.path(), [&] {
    SQLite::Statement q(store_.connection(),
                        "SELECT config_key, status, gflops FROM trials INDEXED BY trials_ok_by_gflops "
                        "WHERE workload_id = ? AND status = 'ok'" +
                            ScopeFilter(scope) + " ORDER BY gflops DESC, id LIMIT ?");
    q.bind(1, workload_id);
    q.bind(BindScope(q, scope, 2), limit);
    std::vector<LeanTrial> trials;
    while (q.executeStep()) trials.push_back(ReadLean(q));
    return trials;
  });
}

int64_t HistoryQueries::DeviceId(const std::string& fingerprint) const {
  return Translated(store_.path(), [&] {
    SQLite::Statement q(store_.connection(), "SELECT id FROM devices WHERE fingerprint = ?");
    q.bind(1, fingerprint);
    return q.executeStep() ? q.getColumn(0).getInt64() : int64_t{0};
  });
}

int64_t HistoryQueries::WorkloadId(const std::string& key) const {
  return Translated(store_.path(), [&] {
    SQLite::Statement q(store_.connection(), "SELECT id FROM workloads WHERE key = ?");
    q.bind(1, key);
    return q.executeStep() ? q.getColumn(0).getInt64() : int64_t{0};
  });
}

std::vector<std::pair<int64_t, DeviceInfo>> HistoryQueries::Devices() const {
  return Translated(store_.path(), [&] {
    SQLite::Statement q(store_.connection(),
                        "SELECT id, platform, name, driver_version, type, compute_units, max_work_group_size, "
                        "local_mem_bytes, global_mem_bytes, imported FROM devices ORDER BY id");
    std::vector<std::pair<int64_t, DeviceInfo>> devices;
    while (q.executeStep()) {
      DeviceInfo d = ReadDevice(q, 1);
      d.imported = q.getColumn(9).getInt() != 0;
      devices.emplace_back(q.getColumn(0).getInt64(), std::move(d));
    }
    return devices;
  });
}

std::vector<int64_t> SqliteHistoryStore::TemplateVersions(const std::string& name, const std::string& knob_schema,
                                                          const std::string& source_hash) const {
  return HistoryQueries(*this).TemplateVersions(name, knob_schema, source_hash);
}

std::vector<RecordedWorkload> SqliteHistoryStore::WorkloadsWithOkTrials(const std::string& op,
                                                                        const HistoryScope& scope) const {
  return HistoryQueries(*this).WorkloadsWithOkTrials(op, scope);
}

std::vector<LeanTrial> SqliteHistoryStore::FastestTrials(int64_t workload_id, const HistoryScope& scope,
                                                         int64_t limit) const {
  return HistoryQueries(*this).FastestTrials(workload_id, scope, limit);
}

}  // namespace tt
