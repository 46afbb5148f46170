// The network-run and device part of ReportQueries: small aggregates, one row per network
// run, layer, round or device, whatever the number of trials behind them.
#include <SQLiteCpp/SQLiteCpp.h>

#include "core/errors.h"
#include "history/report_queries.h"
#include "history/sqlite_rows.h"
#include "history/timestamp.h"

namespace tt {
namespace {

std::optional<double> OptionalDouble(const SQLite::Column& c) {
  if (c.isNull()) return std::nullopt;
  return c.getDouble();
}

}  // namespace

std::vector<ReportDevice> ReportQueries::Devices() const {
  return Translated(store_.path(), [&] {
    SQLite::Statement q(store_.connection(),
                        "SELECT d.id, d.name, d.imported, p.peak_gflops, p.bandwidth_gbs, coalesce(p.source, '') "
                        "FROM devices d LEFT JOIN device_peaks p ON p.device_id = d.id ORDER BY d.id");
    std::vector<ReportDevice> devices;
    while (q.executeStep())
      devices.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getString(), q.getColumn(2).getInt() != 0,
                         OptionalDouble(q.getColumn(3)), OptionalDouble(q.getColumn(4)), q.getColumn(5).getString()});
    return devices;
  });
}

std::vector<ReportNetworkRun> ReportQueries::NetworkRuns() const {
  return Translated(store_.path(), [&] {
    SQLite::Statement q(
        store_.connection(),
        "SELECT n.id, n.device_id, n.batch, n.trials_requested, "
        "(SELECT max(trials) FROM network_progress WHERE network_run_id = n.id), n.network, d.name, n.scheduler, "
        "n.sketch_policy, n.tuner, n.status, "
        "(SELECT latency_s FROM network_progress WHERE network_run_id = n.id ORDER BY trials DESC LIMIT 1), "
        "n.command FROM network_runs n JOIN devices d ON d.id = n.device_id WHERE :id = 0 OR n.id = :id ORDER BY n.id");
    q.bind(":id", filter_.network_run_id);
    std::vector<ReportNetworkRun> runs;
    while (q.executeStep()) {
      ReportNetworkRun r;
      r.id = q.getColumn(0).getInt64();
      r.device_id = q.getColumn(1).getInt64();
      r.batch = q.getColumn(2).getInt64();
      r.trials_requested = q.getColumn(3).getInt64();
      r.trials_used = q.getColumn(4).isNull() ? 0 : q.getColumn(4).getInt64();
      r.network = q.getColumn(5).getString();
      r.device = q.getColumn(6).getString();
      r.scheduler = q.getColumn(7).getString();
      r.sketch_policy = q.getColumn(8).getString();
      r.tuner = q.getColumn(9).getString();
      r.status = q.getColumn(10).getString();
      r.latency_s = OptionalDouble(q.getColumn(11));
      r.command = q.getColumn(12).getString();
      runs.push_back(std::move(r));
    }
    return runs;
  });
}

std::vector<ReportLayer> ReportQueries::Layers(const ReportNetworkRun& run) const {
  return Translated(store_.path(), [&] {
    // The best time of each workload on the run's device, over every template: the first entry
    // of each template's range of trials_ok_by_time, then the fastest of those.
    SQLite::Statement q(
        store_.connection(),
        "SELECT nt.task_index, nt.weight, w.key, nt.layers, coalesce(nt.sketch, ''), coalesce(nt.sketch_reason, ''), "
        "w.flops, nt.default_time_s, b.time_s, b.name "
        "FROM network_tasks nt JOIN workloads w ON w.id = nt.workload_id "
        "LEFT JOIN (SELECT t.workload_id, min(t.time_s) AS time_s, k.name FROM trials t "
        "           JOIN kernel_templates k ON k.id = t.template_id "
        "           WHERE t.device_id = :device AND t.status = 'ok' AND t.time_s > 0 "
        "             AND t.workload_id IN (SELECT workload_id FROM network_tasks WHERE network_run_id = :run) "
        "           GROUP BY t.workload_id) b ON b.workload_id = nt.workload_id "
        "WHERE nt.network_run_id = :run ORDER BY nt.task_index");
    q.bind(":device", run.device_id);
    q.bind(":run", run.id);
    std::vector<ReportLayer> layers;
    while (q.executeStep()) {
      ReportLayer l;
      l.task_index = q.getColumn(0).getInt64();
      l.weight = q.getColumn(1).getInt64();
      l.workload = q.getColumn(2).getString();
      l.layers = q.getColumn(3).getString();
      l.sketch = q.getColumn(4).getString();
      l.sketch_reason = q.getColumn(5).getString();
      l.flops = q.getColumn(6).getDouble();
      l.default_time_s = OptionalDouble(q.getColumn(7));
      l.best_time_s = OptionalDouble(q.getColumn(8));
      if (!q.getColumn(9).isNull()) l.best_sketch = q.getColumn(9).getString();
      layers.push_back(std::move(l));
    }
    return layers;
  });
}

std::vector<ReportAnytimePoint> ReportQueries::Anytime(int64_t network_run_id) const {
  return Translated(store_.path(), [&] {
    SQLite::Statement q(store_.connection(),
                        "SELECT p.trials, p.latency_s, "
                        "(julianday(p.recorded_at) - julianday(n.started_at)) * 86400 "
                        "FROM network_progress p JOIN network_runs n ON n.id = p.network_run_id "
                        "WHERE p.network_run_id = ? ORDER BY p.trials");
    q.bind(1, network_run_id);
    std::vector<ReportAnytimePoint> points;
    while (q.executeStep())
      points.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getDouble(),
                        q.getColumn(2).isNull() ? 0 : q.getColumn(2).getDouble()});
    return points;
  });
}

ReportTimeSplit ReportQueries::TimeSplit(int64_t network_run_id) const {
  return Translated(store_.path(), [&] {
    // network_time_split for one run, through runs_by_network_run and trials_by_run.
    SQLite::Statement q(
        store_.connection(),
        "SELECT (julianday(coalesce(n.ended_at, (SELECT max(coalesce(r.ended_at, r.started_at)) FROM runs r "
        "                                         WHERE r.network_run_id = n.id), n.started_at)) "
        "        - julianday(n.started_at)) * 86400, "
        "coalesce(sum(t.wall_s), 0), coalesce(sum(t.compile_s), 0), coalesce(sum(t.first_launch_s), 0), "
        "coalesce(sum(t.verify_s), 0), coalesce(sum(t.timed_s), 0), "
        "coalesce(sum(CASE WHEN t.status = 'timeout' THEN t.wall_s ELSE 0 END), 0), count(t.id), "
        "coalesce(sum(t.status = 'timeout'), 0) "
        "FROM network_runs n LEFT JOIN runs r ON r.network_run_id = n.id LEFT JOIN trials t ON t.run_id = r.id "
        "WHERE n.id = ?");
    q.bind(1, network_run_id);
    ReportTimeSplit s;
    if (!q.executeStep()) return s;
    s.run_wall_s = q.getColumn(0).isNull() ? 0 : q.getColumn(0).getDouble();
    s.measure_wall_s = q.getColumn(1).getDouble();
    s.build_s = q.getColumn(2).getDouble();
    s.first_launch_s = q.getColumn(3).getDouble();
    s.verify_s = q.getColumn(4).getDouble();
    s.timed_s = q.getColumn(5).getDouble();
    s.timeout_wall_s = q.getColumn(6).getDouble();
    s.trials = q.getColumn(7).getInt64();
    s.timeouts = q.getColumn(8).getInt64();
    return s;
  });
}

std::vector<ReportWorkloadBest> ReportQueries::BestPerWorkload() const {
  return Translated(store_.path(), [&] {
    SQLite::Statement q(store_.connection(),
                        "SELECT w.key, d.name, b.time_s FROM (SELECT workload_id, device_id, min(time_s) AS time_s "
                        "FROM trials WHERE status = 'ok' AND time_s > 0 GROUP BY workload_id, device_id) b "
                        "JOIN workloads w ON w.id = b.workload_id JOIN devices d ON d.id = b.device_id "
                        "ORDER BY w.key, d.name");
    std::vector<ReportWorkloadBest> best;
    while (q.executeStep())
      best.push_back({q.getColumn(0).getString(), q.getColumn(1).getString(), q.getColumn(2).getDouble()});
    return best;
  });
}

void LimitPageCacheForReport(const SqliteHistoryStore& store) {
  Translated(store.path(), [&] { store.connection().exec("PRAGMA cache_size = -1024"); });
}

void SetDevicePeak(SqliteHistoryStore& store, const std::string& device, std::optional<double> peak_gflops,
                   std::optional<double> bandwidth_gbs) {
  for (const auto& [name, value] : {std::pair{"--peak-gflops", peak_gflops}, {"--bandwidth-gbs", bandwidth_gbs}})
    if (value && !(*value > 0 && *value < 1e12))
      throw UserError(std::string(name) + " must be a positive number of at most 1e12");
  Translated(store.path(), [&] {
    SQLite::Database& db = store.connection();
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement find(db,
                           "SELECT id FROM devices WHERE imported = 0 AND (:device = '' OR name = :device OR "
                           "fingerprint = :device) ORDER BY id");
    find.bind(":device", device);
    std::vector<int64_t> ids;
    while (find.executeStep()) ids.push_back(find.getColumn(0).getInt64());
    if (ids.empty())
      throw UserError(device.empty() ? "no device of this machine in " + store.path()
                                     : "no device named '" + device + "' in " + store.path());
    if (ids.size() > 1)
      throw UserError(std::to_string(ids.size()) + " devices in " + store.path() +
                      (device.empty() ? " match: name one with --device" : " have that name: give its fingerprint"));
    SQLite::Statement set(db,
                          "INSERT INTO device_peaks (device_id, peak_gflops, bandwidth_gbs, source, recorded_at) "
                          "VALUES (:id, :peak, :bw, 'user', :at) ON CONFLICT (device_id) DO UPDATE SET "
                          "peak_gflops = coalesce(excluded.peak_gflops, peak_gflops), "
                          "bandwidth_gbs = coalesce(excluded.bandwidth_gbs, bandwidth_gbs), "
                          "source = excluded.source, recorded_at = excluded.recorded_at");
    set.bind(":id", ids.front());
    if (peak_gflops) set.bind(":peak", *peak_gflops);
    if (bandwidth_gbs) set.bind(":bw", *bandwidth_gbs);
    set.bind(":at", UtcNowIso8601());
    set.exec();
    transaction.commit();
  });
}

}  // namespace tt
