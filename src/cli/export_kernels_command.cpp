// `tensortune export-kernels`: per task of a network, the kernel its recorded device runs best
// (or the labelled fallback), written as a kernel pack that tensortune::runtime loads without
// the database.
#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/kernel_pack_commands.h"
#include "core/errors.h"
#include "core/option_checks.h"
#include "history/history_queries.h"
#include "networks/network.h"
#include "runtime/runtime_internal.h"
#include "tensortune/history.h"

namespace tt {
namespace {

// The recorded device to export for: the one matching `fragment`, else the only device of a
// machine (not imported) in the database.
DeviceInfo TargetDevice(const std::string& db, const std::string& fragment) {
  auto store = SqliteHistoryStore::OpenReadOnly(db);
  std::vector<DeviceInfo> matching;
  std::string known;
  for (const auto& [id, d] : HistoryQueries(*store).Devices()) {
    known += (known.empty() ? "" : "; ") + d.Fingerprint() + (d.imported ? " (imported)" : "");
    if (fragment.empty() ? !d.imported : d.Fingerprint().find(fragment) != std::string::npos) matching.push_back(d);
  }
  if (matching.size() == 1) return matching.front();
  if (matching.empty())
    throw UserError(fragment.empty() ? "no device of a machine is recorded in " + db + " (devices: " + known + ")"
                                     : "no device matching '" + fragment + "' in " + db + " (devices: " + known + ")");
  throw UserError("several devices " + std::string(fragment.empty() ? "are" : "match '" + fragment + "'") + " in " +
                  db + ": pick one with --device (devices: " + known + ")");
}

std::string Ms(double seconds) { return seconds > 0 ? fmt::format("{:.4g}", seconds * 1e3) : "-"; }

std::string Join(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

}  // namespace

int RunExportKernels(const ExportKernelsOptions& o, std::ostream& out, std::ostream& err) {
  CheckCount("--batch", o.batch, kMaxNetworkBatch);
  if (o.out.empty()) throw UserError("--out DIR is required");
  const Network network = LoadNetwork(o.network);
  const auto tasks = NetworkTasks(network, o.batch);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.db, ec)) throw UserError("database " + o.db + " does not exist");
  if (std::filesystem::exists(o.out, ec) &&
      !(std::filesystem::is_directory(o.out, ec) && std::filesystem::is_empty(o.out, ec)))
    throw UserError("output directory " + o.out + " exists and is not empty");
  const DeviceInfo device = TargetDevice(o.db, o.device);
  const tensortune::DeviceDescription target = runtime::ToDescription(device);

  std::shared_ptr<const tensortune::ConfigSource> history;
  std::vector<runtime::PackTask> pack;
  try {
    history = tensortune::OpenHistory(o.db);
    tensortune::PrepareOptions options;
    if (o.exact_only) options.least_trusted = tensortune::Origin::kExact;
    for (const NetworkTask& task : tasks)
      pack.push_back(
          {tensortune::Choose(runtime::ToPublic(task.workload), *history, target, options), task.layers, task.weight});
  } catch (const tensortune::Error& e) {
    if (e.code() == tensortune::ErrorCode::kMissingWorkload || e.code() == tensortune::ErrorCode::kUnknownDevice) {
      err << "tensortune: " << e.what() << "; nothing written\n";
      return 1;
    }
    throw UserError(e.what());
  }
  runtime::WritePack(o.out, target, network.name, o.batch, pack);

  if (o.json) {
    nlohmann::json j = {{"network", network.name},
                        {"batch", o.batch},
                        {"device", device.Fingerprint()},
                        {"out", o.out},
                        {"tasks", nlohmann::json::array()}};
    for (const auto& t : pack)
      j["tasks"].push_back({{"workload", t.spec.workload},
                            {"layers", t.layers},
                            {"weight", t.weight},
                            {"template", t.spec.choice.kernel_template},
                            {"config_key", t.spec.choice.config_key},
                            {"origin", tensortune::ToString(t.spec.choice.origin)},
                            {"note", t.spec.choice.note},
                            {"recorded_time_s", t.spec.choice.recorded_time_s}});
    out << j.dump(2) << "\n";
    return 0;
  }
  out << fmt::format(
      "{} (batch {}) for {}: {} kernels\n\n| # | layers | workload | sketch | origin | recorded ms |\n"
      "|---|---|---|---|---|---|\n",
      network.name, o.batch, device.name, pack.size());
  int fallbacks = 0;
  for (size_t i = 0; i < pack.size(); ++i) {
    const auto& c = pack[i].spec.choice;
    fallbacks += c.origin != tensortune::Origin::kExact;
    out << fmt::format("| {} | {} | {} | {} | {} | {} |\n", i, Join(pack[i].layers), pack[i].spec.workload,
                       c.kernel_template, tensortune::ToString(c.origin), Ms(c.recorded_time_s));
  }
  if (fallbacks > 0)
    out << fmt::format(
        "\n{} of {} kernels are fallbacks (no verified trial of their own workload on {}); the "
        "manifest says where each config comes from\n",
        fallbacks, pack.size(), device.name);
  out << fmt::format("\nwrote {}/{} and {} kernel sources\n", o.out, runtime::kManifestName, pack.size());
  return 0;
}

}  // namespace tt
