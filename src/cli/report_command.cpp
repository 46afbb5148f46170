#include "cli/report_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>

#include "cli/report_network.h"
#include "cli/report_roofline.h"
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
    ".runtime_error{background:#d62728}.wrong_answer{background:#9467bd}.timeout{background:#8c564b}"
    ".summary{display:flex;gap:1em;flex-wrap:wrap;margin:1em 0}.summary div{border:1px solid #ccc;border-radius:6px;"
    "padding:.6em 1em;min-width:190px}.summary span{display:block;font-size:.85em;color:#555}"
    ".summary b{display:block;font-size:1.6em}.summary small{color:#555}.row{display:flex;flex-wrap:wrap}"
    "pre{background:#f4f4f4;padding:.6em;overflow-x:auto}details{margin:.6em 0}summary{cursor:pointer}"
    "table.sortable th{cursor:pointer}svg.chart{max-width:100%;height:auto}";

// Sorts a table.sortable by the clicked column (numbers as numbers), again to reverse.
constexpr const char* kSortScript =
    "document.querySelectorAll('table.sortable th').forEach(function(th){th.addEventListener('click',function(){"
    "var body=th.closest('table').tBodies[0],col=Array.prototype.indexOf.call(th.parentNode.children,th),"
    "up=th.dataset.dir!=='up';th.dataset.dir=up?'up':'down';var rows=Array.prototype.slice.call(body.rows);"
    "rows.sort(function(a,b){var x=a.cells[col].textContent,y=b.cells[col].textContent,"
    "nx=parseFloat(x),ny=parseFloat(y),d=isNaN(nx)||isNaN(ny)?x.localeCompare(y):nx-ny;return up?d:-d;});"
    "rows.forEach(function(r){body.appendChild(r);});});});";

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

// `open`: unfolded (a history without network runs and with few tasks has nothing else to show).
std::string TaskSection(const ReportQueries& queries, const ReportTask& task, bool open) {
  return fmt::format(
      "<details class=\"task\"{}><summary><b>{}</b> &middot; sketch <b>{}</b> on <b>{}</b>{}; {} trials in {} runs"
      "</summary><p>best: {}</p><h3>Status of the trials</h3>{}<h3>Convergence</h3>{}</details>",
      open ? " open" : "", HtmlEscape(task.workload), HtmlEscape(task.sketch), HtmlEscape(task.device),
      task.imported ? " (imported)" : "", task.trials, task.runs, BestText(queries, task), StatusMix(queries, task),
      Convergence(queries, task));
}

// `counts`: the trials and tasks in the filter, at least one.
void Page(const ReportOptions& o, const std::string& db, const SqliteHistoryStore& store,
          std::pair<int64_t, int64_t> counts, std::ostream& html) {
  const ReportQueries queries(store, {o.workload, o.run, o.network_run});
  const auto [trials, task_count] = counts;
  std::vector<ReportTask> repeated, single;
  queries.ForEachTask(true, [&](const ReportTask& task) { repeated.push_back(task); });
  queries.ForEachTask(false, [&](const ReportTask& task) { single.push_back(task); });
  const auto devices = queries.Devices();
  const auto network_runs = o.run == 0 && o.workload.empty() ? queries.NetworkRuns() : std::vector<ReportNetworkRun>{};
  html << fmt::format(
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>tensortune report</title><style>{}</style>"
      "</head><body><h1>tensortune report: {}</h1><p>{} trials of {} tasks; {} network run{}.</p>",
      kStyle, HtmlEscape(std::filesystem::path(db).filename().string()), trials, task_count, network_runs.size(),
      network_runs.size() == 1 ? "" : "s");
  html << NetworkSections(queries, network_runs, devices, db);
  RooflineSections(queries, repeated, single, devices, html);
  if (!o.compare.empty()) {
    const auto other = SqliteHistoryStore::OpenReadOnly(o.compare);
    const ReportQueries theirs(*other, {o.workload, o.run, o.network_run});
    html << CompareSection(db, queries, o.compare, theirs);
  }
  if (!repeated.empty())
    html << "<section><h2>Tasks</h2><p>Each task (workload, sketch, device) folded: open one for its best "
            "configuration, the status of its trials and its convergence.</p>";
  constexpr size_t kTasksShownOpen = 3;
  const bool open = network_runs.empty() && repeated.size() <= kTasksShownOpen;
  for (const ReportTask& task : repeated) html << TaskSection(queries, task, open);
  if (!repeated.empty()) html << "</section>";
  // Tasks with one measurement per run (imported records, typically) make a table, not plots.
  if (!single.empty()) {
    html << "<h2>Tasks without a convergence to plot</h2><table class=\"sortable\"><thead><tr><th>workload</th>"
            "<th>sketch</th><th>device</th><th>trials</th><th>best</th></tr></thead><tbody>";
    for (const ReportTask& task : single)
      html << fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td></tr>",
                          HtmlEscape(task.workload), HtmlEscape(task.sketch), HtmlEscape(task.device),
                          task.imported ? " (imported)" : "", task.trials, BestText(queries, task));
    html << "</tbody></table>";
  }
  html << fmt::format("<script>{}</script></body></html>\n", kSortScript);
}

}  // namespace

int RunReport(const ReportOptions& o, std::ostream& out) {
  if (o.db.empty() || o.db.size() > 2) throw UserError("report: give --db once, or twice to compare two databases");
  ReportOptions options = o;
  if (o.db.size() == 2) {
    if (!o.compare.empty()) throw UserError("report: --compare and a second --db both name a database to compare");
    options.compare = o.db[1];
  }
  const std::string& db = o.db.front();
  for (const std::string& path : {db, options.compare})
    if (!path.empty() && !std::filesystem::exists(path)) throw UserError("no history database at " + path);
  std::vector<std::string> inputs{db};
  if (!options.compare.empty()) inputs.push_back(options.compare);
  CheckOutputPath(o.out, inputs);
  if (!o.device.empty() && !o.peak_gflops && !o.bandwidth_gbs)
    throw UserError("report: --device names the device whose --peak-gflops or --bandwidth-gbs is given");
  const auto store = SqliteHistoryStore::OpenReadOnly(db);
  LimitPageCacheForReport(*store);
  const auto counts = ReportQueries(*store, {o.workload, o.run, o.network_run}).Count();
  if (counts.first == 0) throw UserError("no trials in " + db + " match the report's filters");
  if (o.peak_gflops || o.bandwidth_gbs)  // the one write: stored for this and later reports
    SetDevicePeak(*SqliteHistoryStore::Open(db), o.device, o.peak_gflops, o.bandwidth_gbs);
  WholeFile file(o.out);
  Page(options, db, *store, counts, file.stream());
  file.Commit();
  out << fmt::format("{}: {} tasks, {} trials\n", o.out, counts.second, counts.first);
  return 0;
}

}  // namespace tt
