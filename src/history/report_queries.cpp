#include "history/report_queries.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include "history/sqlite_rows.h"

namespace tt {
namespace {

// FROM and WHERE of the filtered trials (alias t), with parameters bound from `first` on;
// only the conditions that are set, so that SQLite can use the indexes for them.
struct Filtered {
  std::string from, where;
};

Filtered Sql(const ReportFilter& f, bool task) {
  Filtered s{" FROM trials t", " WHERE 1"};
  if (f.network_run_id != 0) s.from += " JOIN runs fr ON fr.id = t.run_id";
  if (task) s.where += " AND t.workload_id = :workload AND t.template_id = :template AND t.device_id = :device";
  if (!f.workload.empty()) s.where += " AND t.workload_id = (SELECT id FROM workloads WHERE key = :key)";
  if (f.run_id != 0) s.where += " AND t.run_id = :run";
  if (f.network_run_id != 0) s.where += " AND fr.network_run_id = :network_run";
  return s;
}

void Bind(SQLite::Statement& q, const ReportFilter& f, const TaskIds* task) {
  if (task) {
    q.bind(":workload", task->workload);
    q.bind(":template", task->kernel_template);
    q.bind(":device", task->device);
  }
  if (!f.workload.empty()) q.bind(":key", f.workload);
  if (f.run_id != 0) q.bind(":run", f.run_id);
  if (f.network_run_id != 0) q.bind(":network_run", f.network_run_id);
}

}  // namespace

std::pair<int64_t, int64_t> ReportQueries::Count() const {
  return Translated(store_.path(), [&] {
    const Filtered s = Sql(filter_, false);
    SQLite::Statement q(store_.connection(), "SELECT coalesce(sum(n), 0), count(*) FROM (SELECT count(*) AS n" +
                                                 s.from + s.where +
                                                 " GROUP BY t.workload_id, t.template_id, t.device_id)");
    Bind(q, filter_, nullptr);
    q.executeStep();
    return std::pair{q.getColumn(0).getInt64(), q.getColumn(1).getInt64()};
  });
}

void ReportQueries::ForEachTask(bool repeated, const std::function<void(const ReportTask&)>& each) const {
  Translated(store_.path(), [&] {
    const Filtered s = Sql(filter_, false);
    SQLite::Statement q(
        store_.connection(),
        "SELECT g.workload_id, g.template_id, g.device_id, w.key, k.name, d.name, d.imported, g.n, g.runs "
        "FROM (SELECT t.workload_id, t.template_id, t.device_id, min(t.id) AS first, count(*) AS n, "
        "count(DISTINCT t.run_id) AS runs" +
            s.from + s.where +
            " GROUP BY t.workload_id, t.template_id, t.device_id) g "
            "JOIN workloads w ON w.id = g.workload_id JOIN kernel_templates k ON k.id = g.template_id "
            "JOIN devices d ON d.id = g.device_id WHERE (g.n > g.runs) = :repeated ORDER BY g.first");
    Bind(q, filter_, nullptr);
    q.bind(":repeated", repeated ? 1 : 0);
    ReportTask task;
    while (q.executeStep()) {
      task.ids = {q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), q.getColumn(2).getInt64()};
      task.workload = q.getColumn(3).getString();
      task.sketch = q.getColumn(4).getString();
      task.device = q.getColumn(5).getString();
      task.imported = q.getColumn(6).getInt() != 0;
      task.trials = q.getColumn(7).getInt64();
      task.runs = q.getColumn(8).getInt64();
      each(task);
    }
  });
}

std::optional<ReportBest> ReportQueries::Best(const TaskIds& task) const {
  return Translated(store_.path(), [&]() -> std::optional<ReportBest> {
    const Filtered s = Sql(filter_, true);
    SQLite::Statement q(store_.connection(),
                        "SELECT t.config_key, t.time_s, t.gflops" + s.from + s.where +
                            " AND t.status = 'ok' AND t.time_s > 0 ORDER BY t.time_s, t.id LIMIT 1");
    Bind(q, filter_, &task);
    if (!q.executeStep()) return std::nullopt;
    return ReportBest{q.getColumn(0).getString(), q.getColumn(1).getDouble(), q.getColumn(2).getDouble()};
  });
}

std::vector<std::pair<std::string, int64_t>> ReportQueries::StatusCounts(const TaskIds& task) const {
  return Translated(store_.path(), [&] {
    const Filtered s = Sql(filter_, true);
    SQLite::Statement q(store_.connection(),
                        "SELECT t.status, count(*)" + s.from + s.where + " GROUP BY t.status ORDER BY t.status");
    Bind(q, filter_, &task);
    std::vector<std::pair<std::string, int64_t>> counts;
    while (q.executeStep()) counts.emplace_back(q.getColumn(0).getString(), q.getColumn(1).getInt64());
    return counts;
  });
}

std::vector<ReportRun> ReportQueries::Runs(const TaskIds& task) const {
  return Translated(store_.path(), [&] {
    const Filtered s = Sql(filter_, true);
    SQLite::Statement q(store_.connection(), "SELECT t.run_id, (SELECT tuner FROM runs WHERE id = t.run_id), count(*)" +
                                                 s.from + s.where + " GROUP BY t.run_id ORDER BY t.run_id");
    Bind(q, filter_, &task);
    std::vector<ReportRun> runs;
    while (q.executeStep())
      runs.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getString(), q.getColumn(2).getInt64()});
    return runs;
  });
}

void ReportQueries::ForEachTrial(const TaskIds& task,
                                 const std::function<void(int64_t run, bool ok, double gflops)>& each) const {
  Translated(store_.path(), [&] {
    const Filtered s = Sql(filter_, true);
    SQLite::Statement q(store_.connection(),
                        "SELECT t.run_id, t.status = 'ok', t.gflops" + s.from + s.where + " ORDER BY t.id");
    Bind(q, filter_, &task);
    while (q.executeStep()) each(q.getColumn(0).getInt64(), q.getColumn(1).getInt() != 0, q.getColumn(2).getDouble());
  });
}

}  // namespace tt
