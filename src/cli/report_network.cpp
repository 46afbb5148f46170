#include "cli/report_network.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "cli/svg_charts.h"

namespace tt {
namespace {

const ReportDevice* DeviceOf(const std::vector<ReportDevice>& devices, int64_t id) {
  for (const auto& d : devices)
    if (d.id == id) return &d;
  return nullptr;
}

// What a layer costs in the network: weight x its best time, else its untuned default.
std::optional<double> LayerTime(const ReportLayer& l) {
  const auto t = l.best_time_s ? l.best_time_s : l.default_time_s;
  if (!t) return std::nullopt;
  return *t * static_cast<double>(l.weight);
}

std::optional<double> Gflops(const ReportLayer& l) {
  if (!l.best_time_s || !(*l.best_time_s > 0)) return std::nullopt;
  return l.flops / *l.best_time_s / 1e9;
}

std::string Summary(const ReportNetworkRun& run, const std::vector<ReportLayer>& layers, const ReportTimeSplit& split) {
  double defaults = 0;
  size_t with_default = 0;
  for (const auto& l : layers)
    if (l.default_time_s) defaults += *l.default_time_s * static_cast<double>(l.weight), ++with_default;
  std::string html = "<div class=\"summary\"><div><span>estimated latency</span><b>" + Ms(run.latency_s) + " ms</b>";
  html += fmt::format("<small>after {} of {} trials; the sum of weight x best time over {} layers</small></div>",
                      run.trials_used, run.trials_requested, layers.size());
  if (with_default == layers.size() && !layers.empty()) {
    html += "<div><span>untuned default</span><b>" + Ms(defaults) + " ms</b>";
    if (run.latency_s && *run.latency_s > 0)
      html += fmt::format("<small>{:.2f}x faster tuned</small>", defaults / *run.latency_s);
    html += "</div>";
  } else {
    html += fmt::format("<div><span>untuned default</span><b>-</b><small>measured for {} of {} layers</small></div>",
                        with_default, layers.size());
  }
  html +=
      "<div><span>measured latency</span><b>-</b><small>not recorded in the database: "
      "<code>run-network</code> below measures it</small></div>";
  html += fmt::format("<div><span>tuning time</span><b>{:.1f} min</b><small>{} trials, {} timeouts</small></div></div>",
                      split.run_wall_s / 60, split.trials, split.timeouts);
  return html;
}

std::string LayerChart(const std::vector<ReportLayer>& layers, const ReportDevice* device) {
  std::vector<const ReportLayer*> order;
  for (const auto& l : layers) order.push_back(&l);
  std::stable_sort(order.begin(), order.end(), [](const ReportLayer* a, const ReportLayer* b) {
    return LayerTime(*a).value_or(0) > LayerTime(*b).value_or(0);
  });
  const double peak = device && device->peak_gflops ? *device->peak_gflops : 0;  // 0: unknown
  std::vector<BarRow> rows;
  for (const ReportLayer* l : order) {
    std::string note = fmt::format("{} ms", Ms(LayerTime(*l)));
    if (!l->best_time_s) note += " (untuned default)";
    if (const auto g = Gflops(*l)) {
      note += fmt::format(", {:.1f} GFLOPS", *g);
      if (peak > 0) note += fmt::format(", {:.0f}% of peak", 100 * *g / peak);
    }
    std::optional<double> behind;
    if (l->default_time_s) behind = *l->default_time_s * static_cast<double>(l->weight) * 1e3;
    rows.push_back({fmt::format("{} x{}", l->layers, l->weight), LayerTime(*l).value_or(0) * 1e3, behind, note});
  }
  std::string html =
      "<h3>Where the time goes, layer by layer</h3><p>Each bar is a layer's time in the network "
      "(its best time x how often it occurs), slowest first; the pale bar behind is its untuned "
      "default. ";
  html += peak > 0 ? fmt::format("Fractions are of the device's peak of {:.1f} GFLOPS ({}).</p>", peak,
                                 HtmlEscape(device->peak_source))
                   : "The device's peak is unknown, so GFLOPS are shown alone (<code>tensortune report "
                     "--peak-gflops G</code> stores it).</p>";
  return html + SvgBars(rows, "ms in the network", "layers");
}

std::string LayerTable(const std::vector<ReportLayer>& layers, const ReportDevice* device) {
  std::string html =
      "<table class=\"sortable\"><thead><tr><th>layers</th><th>workload</th><th>weight</th><th>best ms</th>"
      "<th>default ms</th><th>ms in network</th><th>GFLOPS</th><th>% of peak</th><th>sketch</th><th>why</th>"
      "</tr></thead><tbody>";
  for (const auto& l : layers) {
    const auto g = Gflops(l);
    const bool peak = device && device->peak_gflops && g;
    html += fmt::format(
        "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td></tr>",
        HtmlEscape(l.layers), HtmlEscape(l.workload), l.weight, Ms(l.best_time_s), Ms(l.default_time_s),
        Ms(LayerTime(l)), g ? fmt::format("{:.2f}", *g) : "-",
        peak ? fmt::format("{:.1f}", 100 * *g / *device->peak_gflops) : "-",
        HtmlEscape(l.sketch.empty() ? l.best_sketch : l.sketch), HtmlEscape(l.sketch_reason));
  }
  return html + "</tbody></table>";
}

std::string AnytimeCurves(const ReportNetworkRun& run, const std::vector<ReportAnytimePoint>& points) {
  if (points.empty()) return "<p>No round has recorded an estimated latency yet.</p>";
  PlotSeries by_trials{"latency", {}, {}}, by_time{"latency", {}, {}};
  for (const auto& p : points) {
    by_trials.x.push_back(static_cast<double>(std::max<int64_t>(p.trials, 1)));
    by_trials.y.push_back(p.latency_s * 1e3);
    by_time.x.push_back(std::max(p.seconds, 1e-3));
    by_time.y.push_back(p.latency_s * 1e3);
  }
  return "<h3>Anytime curve</h3><div class=\"row\">" +
         SvgLogPlot(
             {fmt::format("anytime-trials-{}", run.id), "trials", "estimated latency (ms)", {by_trials}, {}, {}}) +
         SvgLogPlot({fmt::format("anytime-time-{}", run.id),
                     "seconds of tuning",
                     "estimated latency (ms)",
                     {by_time},
                     {},
                     {}}) +
         "</div>";
}

std::string TimeSplitBar(const ReportNetworkRun& run, const ReportTimeSplit& s) {
  const double rest = std::max(0.0, s.run_wall_s - s.measure_wall_s);
  const double timed = std::max(0.0, s.timed_s);
  std::string html = fmt::format(
      "<h3>Where the tuning time went</h3><p>{:.1f} s of wall clock; the trials' measuring took {:.1f} s of it. "
      "Builds run in parallel, so the parts are seconds of work and may sum past the wall clock; "
      "\"rest\" is the wall clock outside measuring (tuner, model, database, workers starting).</p>",
      s.run_wall_s, s.measure_wall_s);
  return html + SvgStackedBar({{"build", s.build_s},
                               {"first launch", s.first_launch_s},
                               {"verification", s.verify_s},
                               {"timed runs", timed},
                               {"timeouts", s.timeout_wall_s},
                               {"rest", rest}},
                              "s", fmt::format("time-split-{}", run.id));
}

std::string ShellWord(const std::string& word) {
  if (!word.empty() &&
      word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-+=:,") ==
          std::string::npos)
    return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The network as tune-network was given it (a built-in name or a file): the word after
// "tune-network" in the recorded command, else the network's name.
std::string NetworkArgument(const ReportNetworkRun& run) {
  std::istringstream words(run.command);
  std::string word;
  while (words >> word)
    if (word == "tune-network" && words >> word && !word.empty() && word[0] != '-') return word;
  return run.network;
}

std::string NextSteps(const ReportNetworkRun& run, const std::string& db_name) {
  const std::string argument = NetworkArgument(run);
  const std::string net = ShellWord(argument), db = ShellWord(db_name);
  std::string stem = std::filesystem::path(argument).stem().string();
  if (stem.empty()) stem = "network";
  const std::string pack = ShellWord(stem + "-pack");
  const std::string batch = run.batch != 1 ? fmt::format(" --batch {}", run.batch) : "";
  return fmt::format(
      "<h3>Next steps</h3><p>Export the fastest kernel of every layer as a kernel pack, then run the whole "
      "network with it on the device (it checks each layer against the CPU and prints the measured latency):</p>"
      "<pre>tensortune export-kernels {0} --db {1}{2} --out {3}\ntensortune run-network {0} --pack {3}{2}</pre>"
      "<p>or without a pack: <code>tensortune run-network {0} --db {1}{2}</code>. To tune further, run the "
      "same <code>tune-network</code> command with a larger <code>--trials</code>: it continues this run.</p>",
      HtmlEscape(net), HtmlEscape(db), batch, HtmlEscape(pack));
}

}  // namespace

std::string Ms(std::optional<double> seconds) {
  if (!seconds || !std::isfinite(*seconds)) return "-";
  return fmt::format("{:.4g}", *seconds * 1e3);
}

std::string NetworkSections(const ReportQueries& queries, const std::vector<ReportNetworkRun>& runs,
                            const std::vector<ReportDevice>& devices, const std::string& db_name) {
  std::string html;
  for (size_t i = 0; i < runs.size(); ++i) {
    const ReportNetworkRun& run = runs[i];
    // A network run followed by a later one of the same network and device is folded.
    const bool superseded =
        std::any_of(runs.begin() + static_cast<std::ptrdiff_t>(i) + 1, runs.end(), [&](const auto& r) {
          return r.network == run.network && r.device_id == run.device_id && r.batch == run.batch;
        });
    if (superseded)
      html += fmt::format(
          "<details class=\"older\"><summary>Network run {} of {} (batch {}), an earlier one: {} ms "
          "estimated</summary>",
          run.id, HtmlEscape(run.network), run.batch, Ms(run.latency_s));
    const ReportDevice* device = DeviceOf(devices, run.device_id);
    const auto layers = queries.Layers(run);
    const ReportTimeSplit split = queries.TimeSplit(run.id);
    html += fmt::format(
        "<section class=\"network\"><h2>{} (batch {}) on {}</h2><p>network run {}: scheduler {}, sketches {}, "
        "tuner {}, {}</p>",
        HtmlEscape(run.network), run.batch, HtmlEscape(run.device), run.id, HtmlEscape(run.scheduler),
        HtmlEscape(run.sketch_policy), HtmlEscape(run.tuner), HtmlEscape(run.status));
    html += Summary(run, layers, split);
    html += LayerChart(layers, device);
    html += AnytimeCurves(run, queries.Anytime(run.id));
    html += TimeSplitBar(run, split);
    html += "<details><summary>Every layer: times, GFLOPS, the sketch it settled on and why</summary>" +
            LayerTable(layers, device) + "</details>";
    html += NextSteps(run, db_name) + "</section>";
    if (superseded) html += "</details>";
  }
  return html;
}

}  // namespace tt
