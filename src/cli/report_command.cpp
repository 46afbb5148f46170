#include "cli/report_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>

#include "cli/svg_line_plot.h"
#include "cli/whole_file.h"
#include "core/errors.h"
#include "history/report_queries.h"
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

// Points drawn per run: a longer run is drawn at its best so far every few trials.
constexpr int64_t kPointsPerRun = 1000;
// Runs drawn per task; the others are named, not drawn.
constexpr size_t kRunsDrawn = 20;

// GFLOPS as a report shows them: what is not a finite non-negative number counts as none.
double Shown(double gflops) { return std::isfinite(gflops) && gflops > 0 ? gflops : 0; }

std::string BestText(const ReportQueries& queries, const ReportTask& task) {
  const auto best = queries.Best(task.ids);
  if (!best) return "no successful trial";
  return fmt::format("<b>{:.2f} GFLOPS</b> ({:.4g} ms) with <code>{}</code>", Shown(best->gflops), 1e3 * best->time_s,
                     HtmlEscape(best->config_key));
}

std::string StatusMix(const ReportQueries& queries, const ReportTask& task) {
  std::string bar = "<div class=\"bar\">", rows;
  for (const auto& [status, n] : queries.StatusCounts(task.ids)) {
    const std::string name = HtmlEscape(status);
    bar += fmt::format(R"(<div class="{}" style="flex:{}" title="{} {}"></div>)", name, n, name, n);
    rows += fmt::format("<td>{} {}</td>", name, n);
  }
  return bar + "</div><table><tr>" + rows + "</tr></table>";
}

// Best GFLOPS so far against trials, one series per run (the first kRunsDrawn runs).
std::string Convergence(const ReportQueries& queries, const ReportTask& task) {
  const std::vector<ReportRun> runs = queries.Runs(task.ids);
  struct Drawn {
    size_t series;
    int64_t trials, every, seen = 0;
    double best = 0;
  };
  std::map<int64_t, Drawn> drawn;
  std::vector<PlotSeries> series;
  for (const ReportRun& run : runs) {
    if (series.size() == kRunsDrawn) break;
    drawn.emplace(run.id, Drawn{series.size(), run.trials,
                                std::max<int64_t>(1, (run.trials + kPointsPerRun - 1) / kPointsPerRun)});
    series.push_back({fmt::format("run {} {}", run.id, run.tuner), {}, {}});
  }
  queries.ForEachTrial(task.ids, [&](int64_t run, bool ok, double gflops) {
    const auto it = drawn.find(run);
    if (it == drawn.end()) return;
    Drawn& d = it->second;
    d.best = std::max(d.best, ok ? Shown(gflops) : 0.0);
    ++d.seen;
    if (d.seen % d.every == 0 || d.seen == d.trials) {
      series[d.series].x.push_back(static_cast<double>(d.seen));
      series[d.series].y.push_back(d.best);
    }
  });
  std::string html = SvgLinePlot(series, "trials", "best GFLOPS so far");
  if (runs.size() > kRunsDrawn)
    html += fmt::format("<p>{} more runs are not drawn (runs {} to {}).</p>", runs.size() - kRunsDrawn,
                        runs[kRunsDrawn].id, runs.back().id);
  return html;
}

std::string TaskSection(const ReportQueries& queries, const ReportTask& task) {
  return fmt::format(
      "<h2>{}</h2><p>sketch <b>{}</b> on <b>{}</b>{}; {} trials in {} runs</p><p>best: {}</p>"
      "<h3>Status of the trials</h3>{}<h3>Convergence</h3>{}",
      HtmlEscape(task.workload), HtmlEscape(task.sketch), HtmlEscape(task.device), task.imported ? " (imported)" : "",
      task.trials, task.runs, BestText(queries, task), StatusMix(queries, task), Convergence(queries, task));
}

// The estimated latency after each round that recorded it, held until the next (a step line),
// at most kPointsPerRun rounds drawn.
PlotSeries LatencySeries(const NetworkRunSummary& run) {
  PlotSeries series{fmt::format("run {} {} {}", run.id, run.network, run.scheduler), {}, {}};
  const size_t every = std::max<size_t>(1, (run.progress.size() + kPointsPerRun - 1) / kPointsPerRun);
  for (size_t i = 0; i < run.progress.size(); ++i) {
    const auto& [trials, latency] = run.progress[i];
    if (i % every != 0 && i + 1 != run.progress.size()) continue;
    const double x = static_cast<double>(trials), ms = latency * 1e3;
    if (!series.y.empty()) {
      series.x.push_back(x);
      series.y.push_back(series.y.back());
    }
    series.x.push_back(x);
    series.y.push_back(ms);
  }
  return series;
}

std::string NetworkSection(const std::vector<NetworkRunSummary>& runs) {
  if (runs.empty()) return "";
  std::string table =
      "<table><tr><th>run</th><th>network</th><th>batch</th><th>scheduler</th><th>sketches</th>"
      "<th>tuner</th><th>status</th><th>trials</th><th>estimated latency</th><th>untuned default</th></tr>";
  std::vector<PlotSeries> series;
  for (const auto& r : runs) {
    const std::string latency = r.progress.empty() ? "-" : fmt::format("{:.3f} ms", r.progress.back().second * 1e3);
    const std::string defaults = r.default_latency_s > 0 ? fmt::format("{:.3f} ms", r.default_latency_s * 1e3) : "-";
    table += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} of {}</td>"
        "<td>{}</td><td>{}</td></tr>",
        r.id, HtmlEscape(r.network), r.batch, HtmlEscape(r.scheduler), HtmlEscape(r.sketch_policy), HtmlEscape(r.tuner),
        HtmlEscape(r.status), r.progress.empty() ? 0 : r.progress.back().first, r.trials_requested, latency, defaults);
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
  CheckOutputPath(o.out, {o.db});
  const auto store = SqliteHistoryStore::OpenReadOnly(o.db);
  const ReportQueries queries(*store, {o.workload, o.run, o.network_run});
  const auto [trials, tasks] = queries.Count();
  if (trials == 0) throw UserError("no trials in " + o.db + " match the report's filters");
  const auto network_runs =
      o.run == 0 && o.workload.empty() ? store->NetworkRuns(o.network_run) : std::vector<NetworkRunSummary>{};
  WholeFile file(o.out);
  std::ostream& html = file.stream();
  html << fmt::format(
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>tensortune report</title><style>{}</style>"
      "</head><body><h1>tensortune report</h1><p>{}: {} trials of {} tasks</p>{}",
      kStyle, HtmlEscape(std::filesystem::path(o.db).filename().string()), trials, tasks, NetworkSection(network_runs));
  queries.ForEachTask(true, [&](const ReportTask& task) { html << TaskSection(queries, task); });
  // Tasks with one measurement per run (imported records, typically) make a table, not plots.
  bool table = false;
  queries.ForEachTask(false, [&](const ReportTask& task) {
    if (!table)
      html << "<h2>Tasks without a convergence to plot</h2><table><tr><th>workload</th><th>sketch</th>"
              "<th>device</th><th>trials</th><th>best</th></tr>";
    table = true;
    html << fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td></tr>",
                        HtmlEscape(task.workload), HtmlEscape(task.sketch), HtmlEscape(task.device),
                        task.imported ? " (imported)" : "", task.trials, BestText(queries, task));
  });
  if (table) html << "</table>";
  html << "</body></html>\n";
  file.Commit();
  out << fmt::format("{}: {} tasks, {} trials\n", o.out, tasks, trials);
  return 0;
}

}  // namespace tt
