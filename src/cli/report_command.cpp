#include "cli/report_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <ostream>

#include "cli/svg_line_plot.h"
#include "cli/whole_file.h"
#include "core/errors.h"
#include "history/sqlite_history_store.h"

namespace tt {
namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.15em;margin-top:2em;border-top:1px solid #ccc;padding-top:1em}"
    "table{border-collapse:collapse;font-size:.9em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
    "code{font-size:.85em;word-break:break-all}.bar{display:flex;height:14px;width:400px;margin:4px 0}"
    ".ok{background:#2ca02c}.invalid_config{background:#bbb}.compile_error{background:#ff7f0e}"
    ".runtime_error{background:#d62728}.wrong_answer{background:#9467bd}.timeout{background:#8c564b}";

struct Task {
  std::string workload, sketch, device;
  bool imported = false;
  std::vector<const TrialWithTask*> trials;  // oldest first
  std::map<int64_t, std::string> runs;       // run id -> tuner
};

std::vector<Task> GroupByTask(const std::vector<TrialWithTask>& trials) {
  std::map<std::string, size_t> index;
  std::vector<Task> tasks;
  for (const auto& t : trials) {
    const std::string key = t.workload.Key() + "|" + t.kernel_template.name + "|" + t.kernel_template.source_hash +
                            "|" + t.device.Fingerprint();
    auto [it, added] = index.emplace(key, tasks.size());
    if (added) tasks.push_back({t.workload.Key(), t.kernel_template.name, t.device.name, t.device.imported, {}, {}});
    Task& task = tasks[it->second];
    task.trials.push_back(&t);
    task.runs.emplace(t.trial.run_id, t.tuner);
  }
  return tasks;
}

const TrialWithTask* Best(const Task& task) {
  const TrialWithTask* best = nullptr;
  for (const auto* t : task.trials)
    if (t->trial.result.ok() && t->trial.result.time_s > 0 && (!best || t->trial.result.time_s < best->trial.result.time_s))
      best = t;
  return best;
}

std::string BestText(const Task& task) {
  const TrialWithTask* best = Best(task);
  if (!best) return "no successful trial";
  return fmt::format("<b>{:.2f} GFLOPS</b> ({:.4g} ms) with <code>{}</code>", best->trial.result.gflops,
                     1e3 * best->trial.result.time_s, HtmlEscape(best->trial.config_key));
}

std::string StatusMix(const Task& task) {
  std::map<std::string, int64_t> counts;
  for (const auto* t : task.trials) ++counts[std::string(ToString(t->trial.result.status))];
  std::string bar = "<div class=\"bar\">", rows;
  for (const auto& [status, n] : counts) {
    bar += fmt::format(R"(<div class="{}" style="flex:{}" title="{} {}"></div>)", status, n, status, n);
    rows += fmt::format("<td>{} {}</td>", status, n);
  }
  return bar + "</div><table><tr>" + rows + "</tr></table>";
}

std::string Convergence(const Task& task) {
  std::map<int64_t, PlotSeries> by_run;
  for (const auto* t : task.trials) {
    PlotSeries& s = by_run[t->trial.run_id];
    if (s.label.empty()) s.label = fmt::format("run {} {}", t->trial.run_id, t->tuner);
    const double previous = s.y.empty() ? 0 : s.y.back();
    s.y.push_back(std::max(previous, t->trial.result.ok() ? t->trial.result.gflops : 0.0));
  }
  std::vector<PlotSeries> series;
  for (auto& [run, s] : by_run) series.push_back(std::move(s));
  return SvgLinePlot(series, "trials", "best GFLOPS so far");
}

bool HasConvergence(const Task& task) { return task.trials.size() > task.runs.size(); }  // some run measured twice

std::string TaskSection(const Task& task) {
  return fmt::format("<h2>{}</h2><p>sketch <b>{}</b> on <b>{}</b>{}; {} trials in {} runs</p><p>best: {}</p>"
                     "<h3>Status of the trials</h3>{}<h3>Convergence</h3>{}",
                     HtmlEscape(task.workload), HtmlEscape(task.sketch), HtmlEscape(task.device),
                     task.imported ? " (imported)" : "", task.trials.size(), task.runs.size(), BestText(task),
                     StatusMix(task), Convergence(task));
}

// Tasks with one measurement per run (imported records, typically) make a table, not plots.
std::string SingleMeasurementTable(const std::vector<const Task*>& tasks) {
  if (tasks.empty()) return "";
  std::string html = "<h2>Tasks without a convergence to plot</h2><table><tr><th>workload</th><th>sketch</th>"
                     "<th>device</th><th>trials</th><th>best</th></tr>";
  for (const Task* task : tasks)
    html += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td></tr>",
                        HtmlEscape(task->workload), HtmlEscape(task->sketch), HtmlEscape(task->device),
                        task->imported ? " (imported)" : "", task->trials.size(), BestText(*task));
  return html + "</table>";
}

// The estimated latency after each trial, carried forward between the rounds that recorded it.
PlotSeries LatencySeries(const NetworkRunSummary& run) {
  PlotSeries series{fmt::format("run {} {} {}", run.id, run.network, run.scheduler), {}};
  for (const auto& [trials, latency] : run.progress) {
    const double ms = latency * 1e3;
    if (series.y.empty()) series.y.assign(static_cast<size_t>(std::max<int64_t>(trials - 1, 0)), ms);
    series.y.resize(static_cast<size_t>(std::max<int64_t>(trials - 1, 0)), series.y.empty() ? ms : series.y.back());
    series.y.push_back(ms);
  }
  return series;
}

std::string NetworkSection(const std::vector<NetworkRunSummary>& runs) {
  if (runs.empty()) return "";
  std::string table = "<table><tr><th>run</th><th>network</th><th>batch</th><th>scheduler</th><th>sketches</th>"
                      "<th>tuner</th><th>status</th><th>trials</th><th>estimated latency</th><th>untuned default</th></tr>";
  std::vector<PlotSeries> series;
  for (const auto& r : runs) {
    const std::string latency = r.progress.empty() ? "-" : fmt::format("{:.3f} ms", r.progress.back().second * 1e3);
    const std::string defaults = r.default_latency_s > 0 ? fmt::format("{:.3f} ms", r.default_latency_s * 1e3) : "-";
    table += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} of {}</td>"
                         "<td>{}</td><td>{}</td></tr>",
                         r.id, HtmlEscape(r.network), r.batch, HtmlEscape(r.scheduler), HtmlEscape(r.sketch_policy),
                         HtmlEscape(r.tuner), HtmlEscape(r.status), r.progress.empty() ? 0 : r.progress.back().first,
                         r.trials_requested, latency, defaults);
    if (!r.progress.empty()) series.push_back(LatencySeries(r));
  }
  std::string html = "<h2>Network runs</h2>" + table + "</table>";
  if (!series.empty())
    html += "<h3>Estimated network latency</h3>" + SvgLinePlot(series, "trials", "estimated latency (ms)");
  return html;
}

}  // namespace

int RunReport(const ReportOptions& o, std::ostream& out) {
  if (!std::filesystem::exists(o.db)) throw UserError("no history database at " + o.db);
  const auto store = SqliteHistoryStore::Open(o.db);
  const auto trials = store->TrialsWithTasks({"", o.workload, o.run, "", o.network_run});
  if (trials.empty()) throw UserError("no trials in " + o.db + " match the report's filters");
  const auto network_runs = o.run == 0 && o.workload.empty() ? store->NetworkRuns(o.network_run)
                                                              : std::vector<NetworkRunSummary>{};
  const std::vector<Task> tasks = GroupByTask(trials);
  std::string body = NetworkSection(network_runs);
  std::vector<const Task*> single;
  for (const Task& task : tasks) {
    if (HasConvergence(task)) body += TaskSection(task);
    else single.push_back(&task);
  }
  body += SingleMeasurementTable(single);
  const std::string html = fmt::format(
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>tensortune report</title><style>{}</style>"
      "</head><body><h1>tensortune report</h1><p>{}: {} trials of {} tasks</p>{}</body></html>\n",
      kStyle, HtmlEscape(std::filesystem::path(o.db).filename().string()), trials.size(), tasks.size(), body);
  WriteWholeFile(o.out, html);
  out << fmt::format("{}: {} tasks, {} trials\n", o.out, tasks.size(), trials.size());
  return 0;
}

}  // namespace tt
