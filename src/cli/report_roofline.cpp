#include "cli/report_roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <ostream>

#include "cli/report_network.h"
#include "cli/svg_charts.h"
#include "core/workload.h"
#include "ops/kernel_template.h"

namespace tt {
namespace {

// FLOPs per byte of the task's buffers (each read or written once: the least traffic there
// is); nullopt for a template or workload this build does not know.
std::optional<double> Intensity(const ReportTask& task) {
  try {
    const KernelTemplate* kernel = FindTemplate(task.sketch);
    if (!kernel) return std::nullopt;
    const Workload workload = Workload::FromKey(task.workload);
    double bytes = 0;
    for (const auto& b : kernel->Buffers(workload)) bytes += 4.0 * static_cast<double>(b.elements);
    const double flops = kernel->Flops(workload);
    if (!(bytes > 0) || !(flops > 0)) return std::nullopt;
    return flops / bytes;
  } catch (const std::exception&) {  // a history may hold workloads this build cannot parse
    return std::nullopt;
  }
}

std::string Roofline(const ReportDevice& device, std::vector<ScatterPoint> points) {
  double lo = INFINITY, hi = 0, top = 0;
  for (const auto& p : points) lo = std::min(lo, p.x), hi = std::max(hi, p.x), top = std::max(top, p.y);
  lo /= 4, hi *= 4;
  const size_t count = points.size();
  LogPlot plot{
      fmt::format("roofline-{}", device.id), "arithmetic intensity (FLOP/byte)", "GFLOPS", {}, {}, std::move(points)};
  std::string notes;
  if (device.peak_gflops || device.bandwidth_gbs) {
    if (device.bandwidth_gbs && device.peak_gflops) {  // the ridge may lie outside the points' range
      lo = std::min(lo, *device.peak_gflops / *device.bandwidth_gbs / 4);
      hi = std::max(hi, *device.peak_gflops / *device.bandwidth_gbs * 4);
    }
    PlotSeries roof{"roofline", {}, {}};
    constexpr int kSteps = 48;
    for (int i = 0; i <= kSteps; ++i) {
      const double x = lo * std::pow(hi / lo, static_cast<double>(i) / kSteps);
      double y = INFINITY;
      if (device.peak_gflops) y = *device.peak_gflops;
      if (device.bandwidth_gbs) y = std::min(y, *device.bandwidth_gbs * x);
      roof.x.push_back(x);
      roof.y.push_back(y);
    }
    plot.dashed.push_back(roof);
  }
  notes += device.peak_gflops ? fmt::format("compute peak {:.1f} GFLOPS", *device.peak_gflops)
                              : "compute peak unknown (<code>--peak-gflops</code>)";
  notes += device.bandwidth_gbs ? fmt::format(", memory bandwidth {:.1f} GB/s", *device.bandwidth_gbs)
                                : ", memory bandwidth unknown (<code>--bandwidth-gbs</code>)";
  if (!device.peak_source.empty()) notes += " (" + HtmlEscape(device.peak_source) + ")";
  return fmt::format("<h3>{}</h3><p>{} tuned tasks; {}. Intensity counts each buffer read or written once.</p>{}",
                     HtmlEscape(device.name), count, notes, SvgLogPlot(plot));
}

}  // namespace

void RooflineSections(const ReportQueries& queries, const std::vector<ReportTask>& tasks,
                      const std::vector<ReportTask>& more, const std::vector<ReportDevice>& devices,
                      std::ostream& html) {
  bool opened = false;
  for (const auto& device : devices) {
    if (device.imported) continue;
    std::vector<ScatterPoint> points;
    for (const auto* list : {&tasks, &more})
      for (const auto& task : *list) {
        if (task.ids.device != device.id) continue;
        const auto ai = Intensity(task);
        const auto best = ai ? queries.Best(task.ids) : std::nullopt;
        if (best && best->gflops > 0 && std::isfinite(best->gflops))
          points.push_back(
              {*ai, best->gflops, fmt::format("{} {}: {:.1f} GFLOPS", task.workload, task.sketch, best->gflops)});
      }
    if (points.empty()) continue;
    if (!opened) html << "<section><h2>Roofline</h2>";
    opened = true;
    html << Roofline(device, std::move(points));
  }
  if (opened) html << "</section>";
}

std::string CompareSection(const std::string& old_name, const ReportQueries& old_queries, const std::string& new_name,
                           const ReportQueries& new_queries) {
  std::map<std::pair<std::string, std::string>, std::pair<std::optional<double>, std::optional<double>>> rows;
  for (const auto& b : old_queries.BestPerWorkload()) rows[{b.workload, b.device}].first = b.time_s;
  for (const auto& b : new_queries.BestPerWorkload()) rows[{b.workload, b.device}].second = b.time_s;
  std::string html = fmt::format(
      "<section id=\"compare\"><h2>{} against {}</h2><p>The best time of each workload on each device, old "
      "(<b>{}</b>) and new (<b>{}</b>); speedup = old / new.</p>",
      HtmlEscape(new_name), HtmlEscape(old_name), HtmlEscape(old_name), HtmlEscape(new_name));
  std::map<std::string, std::pair<std::optional<double>, std::optional<double>>> networks;
  for (const auto& r : old_queries.NetworkRuns())
    if (r.latency_s) networks[r.network + " on " + r.device].first = r.latency_s;
  for (const auto& r : new_queries.NetworkRuns())
    if (r.latency_s) networks[r.network + " on " + r.device].second = r.latency_s;
  const auto speedup = [](const auto& pair) {
    return pair.first && pair.second && *pair.second > 0 ? fmt::format("{:.2f}x", *pair.first / *pair.second)
                                                         : std::string("-");
  };
  if (!networks.empty()) {
    html +=
        "<table class=\"sortable\"><thead><tr><th>network</th><th>old estimated ms</th><th>new estimated ms</th>"
        "<th>speedup</th></tr></thead><tbody>";
    for (const auto& [name, pair] : networks)
      html += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", HtmlEscape(name), Ms(pair.first),
                          Ms(pair.second), speedup(pair));
    html += "</tbody></table>";
  }
  html +=
      "<table class=\"sortable\"><thead><tr><th>workload</th><th>device</th><th>old ms</th><th>new ms</th>"
      "<th>speedup</th></tr></thead><tbody>";
  for (const auto& [key, pair] : rows)
    html += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                        HtmlEscape(key.first), HtmlEscape(key.second), Ms(pair.first), Ms(pair.second), speedup(pair));
  return html + "</tbody></table></section>";
}

}  // namespace tt
