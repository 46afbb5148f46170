// `tensortune run-network`: a network's tuned layers run in network order on the device, with
// real buffers, through tensortune::runtime. Inputs and weights are random; a layer whose input
// has the shape of the previous layer's output reads that output (converted on the device when
// the two sketches want different layouts). Each layer is checked once against the CPU
// reference; then the whole sequence is timed and printed next to tune-network's estimate
// (and, with --alone-time, every layer on its own: warm caches, as a library times a layer).
// Where a layer's recorded kernels want different activation layouts (NCHW or NCHW16c), each
// is timed here with the conversions between them, and the layers run the plan of least total
// time rather than each its fastest kernel alone. The running is tensortune::NetworkRunner's
// (tensortune/network.h); this file parses, calls and renders.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/kernel_pack_commands.h"
#include "core/errors.h"
#include "core/option_checks.h"
#include "networks/network.h"
#include "tensortune/history.h"
#include "tensortune/network.h"

namespace tt {
namespace {

using tensortune::NetworkRun;
using tensortune::Origin;

std::vector<tensortune::NetworkLayer> Instances(const Network& network, int64_t batch) {
  // NetworkTasks checks every layer at this batch size; the instances follow the layers.
  const auto tasks = NetworkTasks(network, batch);
  std::vector<tensortune::NetworkLayer> instances;
  for (const NetworkLayer& layer : network.layers) {
    const NetworkTask* task = nullptr;
    for (const auto& t : tasks)
      if (std::find(t.layers.begin(), t.layers.end(), layer.name) != t.layers.end()) task = &t;
    if (!task) throw UserError("layer " + layer.name + " has no task");
    const tensortune::Workload w = tensortune::WorkloadFromKey(task->workload.Key());
    for (int64_t r = 0; r < layer.repeat; ++r)
      instances.push_back({layer.repeat > 1 ? layer.name + "#" + std::to_string(r + 1) : layer.name, w, {}});
  }
  return instances;
}

std::string Ms(double seconds) { return seconds > 0 ? fmt::format("{:.4g}", seconds * 1e3) : "-"; }

double RecordedSeconds(const tensortune::Choice& c) { return c.origin == Origin::kExact ? c.recorded_time_s : 0; }

// tune-network's estimate: the sum of the layers' recorded best times (exact records only).
struct Estimate {
  double seconds = 0;
  int layers = 0;
};

Estimate EstimateOf(const NetworkRun& run) {
  Estimate e;
  for (const auto& layer : run.layers)
    if (layer.choice.origin == Origin::kExact && layer.choice.recorded_time_s > 0) {
      e.seconds += layer.choice.recorded_time_s;
      ++e.layers;
    }
  return e;
}

// The kernels the network runs, by workload and sketch.
std::map<std::string, const tensortune::Choice*> KernelsUsed(const NetworkRun& run) {
  std::map<std::string, const tensortune::Choice*> used;
  for (const auto& layer : run.layers) used[layer.workload + "|" + layer.choice.kernel_template] = &layer.choice;
  return used;
}

struct Heading {
  std::string network;
  int64_t batch = 1;
  std::string source;
  bool alone = false;  // the layers were also timed alone
};

void RenderJson(const Heading& h, const NetworkRun& run, std::ostream& out) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : run.layers)
    layers.push_back({{"layer", l.name},
                      {"workload", l.workload},
                      {"template", l.choice.kernel_template},
                      {"config_key", l.choice.config_key},
                      {"origin", tensortune::ToString(l.choice.origin)},
                      {"note", l.choice.note},
                      {"chained", l.chained},
                      {"check", l.check},
                      {"input_layout", tensortune::ToString(l.input_layout)},
                      {"output_layout", tensortune::ToString(l.output_layout)},
                      {"max_abs_error", l.max_abs_error},
                      {"recorded_time_s", RecordedSeconds(l.choice)},
                      {"measured_time_s", l.measured_time_s},
                      {"alone_time_s", l.alone_time_s}});
  const Estimate estimate = EstimateOf(run);
  const auto latency = [&](double s) { return run.verified ? nlohmann::json(s) : nlohmann::json(nullptr); };
  const nlohmann::json j = {{"network", h.network},
                            {"batch", h.batch},
                            {"device", run.device.name},
                            {"source", h.source},
                            {"layers", layers},
                            {"conversions", run.conversions},
                            {"layout_plan",
                             {{"weighed", run.layouts_weighed},
                              {"layers_replanned", run.layers_replanned},
                              {"conversions_fastest_each", run.conversions_fastest_each}}},
                            {"verified", run.verified},
                            {"runs", run.runs},
                            {"measured_latency_s", latency(run.measured_latency_s)},
                            {"kernels_latency_s", latency(run.kernels_latency_s)},
                            {"conversions_latency_s", run.conversions_latency_s},
                            {"estimated_latency_s", estimate.seconds},
                            {"estimated_layers", estimate.layers},
                            {"layers_total", run.layers.size()},
                            {"programs_built", run.cache.built},
                            {"programs_from_disk", run.cache.loaded_from_disk}};
  out << j.dump(2) << "\n";
}

void RenderTable(const Heading& h, const NetworkRun& run, std::ostream& out) {
  const auto used = KernelsUsed(run);
  out << fmt::format(
      "{} (batch {}) on {}: {} layers, {} kernels and {} layout conversions from {}\n\n"
      "| # | layer | workload | sketch | origin | input | check | estimated ms | measured ms |{}\n"
      "|---|---|---|---|---|---|---|---|---|{}\n",
      h.network, h.batch, run.device.name, run.layers.size(), used.size(), run.conversions, h.source,
      h.alone ? " alone ms |" : "", h.alone ? "---|" : "");
  for (size_t i = 0; i < run.layers.size(); ++i) {
    const auto& l = run.layers[i];
    out << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |{}\n", i, l.name, l.workload,
                       l.choice.kernel_template, tensortune::ToString(l.choice.origin),
                       l.chained ? "previous" : "random", l.check, Ms(RecordedSeconds(l.choice)), Ms(l.measured_time_s),
                       h.alone ? " " + Ms(l.alone_time_s) + " |" : "");
  }
  int fallbacks = 0;
  for (const auto& [key, c] : used) fallbacks += c->origin != Origin::kExact;
  if (fallbacks > 0)
    out << fmt::format("\n{} of {} kernels are fallbacks (no verified trial of their own workload on this device):\n",
                       fallbacks, used.size());
  for (const auto& [key, c] : used)
    if (c->origin != Origin::kExact) out << "  " << key << ": " << c->note << "\n";
  if (run.layouts_weighed)
    out << fmt::format(
        "\nlayout plan: {} of {} layers run a kernel other than their fastest alone, so that the "
        "network runs {} layout conversions instead of {} (kernels and conversions timed here; "
        "--fastest-each turns this off)\n",
        run.layers_replanned, run.layers.size(), run.conversions, run.conversions_fastest_each);
}

// A layer timed alone is timed as tuning timed it, so the two should agree; well slower says the
// device is not as it was then (load, another process on its cores, a state of a VM that slows
// some kernels: notebook, 2026-11-29, around midnight).
constexpr double kSlowerThanRecorded = 1.25;

void RenderSlowerThanRecorded(const NetworkRun& run, std::ostream& out) {
  std::vector<std::string> slower;
  for (const auto& l : run.layers) {
    const double recorded = RecordedSeconds(l.choice);
    if (recorded > 0 && l.alone_time_s > kSlowerThanRecorded * recorded)
      slower.push_back(fmt::format("{} {} ms against {}", l.name, Ms(l.alone_time_s), Ms(recorded)));
  }
  if (slower.empty()) return;
  out << fmt::format(
      "\n{} of {} layers ran alone at {}x their recorded time or slower, so the device is not as it was when "
      "they were tuned (machine load, other processes on its cores): {}\n",
      slower.size(), run.layers.size(), kSlowerThanRecorded, fmt::join(slower, "; "));
}

void RenderLatency(const NetworkRun& run, std::ostream& out) {
  out << fmt::format(
      "\nmeasured latency: {:.3f} ms (wall clock of the whole sequence, median of {} runs; its "
      "kernels {:.3f} ms, of which layout conversions {:.3f} ms)\n",
      run.measured_latency_s * 1e3, run.runs, run.kernels_latency_s * 1e3, run.conversions_latency_s * 1e3);
  const Estimate estimate = EstimateOf(run);
  if (estimate.layers > 0)
    out << fmt::format(
        "estimated latency (tune-network: the sum of recorded best times): {:.3f} ms over {} of {} "
        "layers{}; measured / estimated {:.2f}\n",
        estimate.seconds * 1e3, estimate.layers, run.layers.size(),
        estimate.layers < static_cast<int>(run.layers.size()) ? " (fallbacks have no estimate)" : "",
        run.measured_latency_s / estimate.seconds);
  else
    out << "estimated latency: none (no layer has a verified trial of its own workload on this device)\n";
}

tensortune::NetworkRunOptions RunOptionsOf(const RunNetworkOptions& o) {
  tensortune::NetworkRunOptions options;
  if (o.exact_only) options.prepare.least_trusted = Origin::kExact;
  options.prepare.trust_pack_source = o.trust_pack_source;
  options.fastest_each = o.fastest_each;
  options.min_runs = o.min_runs;
  options.min_time_s = o.min_time_s;
  options.alone_min_time_s = o.alone_time_s;
  options.seed = o.seed;
  return options;
}

int Run(const RunNetworkOptions& o, std::ostream& out, std::ostream& err) {
  CheckCount("--batch", o.batch, kMaxNetworkBatch);
  CheckCount("--min-runs", o.min_runs, tensortune::kMaxTimedRuns);
  CheckSeconds("--min-time", o.min_time_s, true, kMaxMinTimeSeconds);
  CheckSeconds("--alone-time", o.alone_time_s, true, kMaxMinTimeSeconds);
  if ((o.db.empty() ? 0 : 1) + (o.pack.empty() ? 0 : 1) + (o.untuned ? 1 : 0) != 1)
    throw UserError("give one of --db (a history database), --pack (a kernel pack) or --untuned");
  const Network network = LoadNetwork(o.network);
  const auto instances = Instances(network, o.batch);
  std::error_code ec;
  if (!o.db.empty() && !std::filesystem::is_regular_file(o.db, ec))
    throw UserError("database " + o.db + " does not exist");

  // Sources first: a bad database or pack is refused before the device is opened.
  std::shared_ptr<const tensortune::ConfigSource> history;
  std::optional<tensortune::KernelPack> pack;
  if (!o.db.empty())
    history = tensortune::OpenHistory(o.db);
  else if (!o.pack.empty())
    pack = tensortune::KernelPack::Load(o.pack);
  const Heading heading{network.name, o.batch,
                        history ? o.db
                        : pack  ? "kernel pack " + o.pack
                                : "untuned template defaults",
                        o.alone_time_s > 0};

  tensortune::RuntimeOptions runtime_options;
  runtime_options.binary_cache = o.binary_cache;
  const tensortune::NetworkRunner runner(o.device, runtime_options);
  const NetworkRun run = history ? runner.Run(instances, *history, RunOptionsOf(o))
                         : pack  ? runner.Run(instances, *pack, RunOptionsOf(o))
                                 : runner.RunUntuned(instances, RunOptionsOf(o));

  if (o.json)
    RenderJson(heading, run, out);
  else
    RenderTable(heading, run, out);
  if (!run.verified) {
    err << "tensortune: a layer's output differs from the CPU reference (see the check column); no latency is "
           "reported\n";
    return 1;
  }
  if (!o.json) {
    RenderLatency(run, out);
    RenderSlowerThanRecorded(run, out);
  }
  return 0;
}

}  // namespace

std::vector<tensortune::NetworkLayer> NetworkInstances(const std::string& network, int64_t batch) {
  CheckCount("--batch", batch, kMaxNetworkBatch);
  return Instances(LoadNetwork(network), batch);
}

int RunRunNetwork(const RunNetworkOptions& o, std::ostream& out, std::ostream& err) {
  try {
    return Run(o, out, err);
  } catch (const tensortune::Error& e) {
    using tensortune::ErrorCode;
    switch (e.code()) {
      case ErrorCode::kMissingWorkload:
      case ErrorCode::kUnknownDevice:
        err << "tensortune: " << e.what() << "\n";
        return 1;
      case ErrorCode::kOpenCL:
      case ErrorCode::kBuildFailed:
        throw EnvironmentError(e.what());
      default:
        throw UserError(e.what());
    }
  }
}

}  // namespace tt
