// The history database as a config source (component `history`): FindBestConfig asked for
// this device first, then for devices ever less like it.
#include <filesystem>

#include "core/errors.h"
#include "history/history_queries.h"
#include "ops/kernel_template.h"
#include "tensortune/best.h"
#include "tensortune/history.h"

namespace tensortune {
namespace {

class HistorySource final : public ConfigSource {
 public:
  explicit HistorySource(std::string path) : path_(std::move(path)) {}

  Candidates Find(const Workload& workload, const DeviceDescription& device,
                  const std::string& kernel_template) const override {
    // Only the public API of tensortune::runtime is visible from here (a library of its own).
    const tt::Workload w = tt::Workload::FromKey(WorkloadKey(workload));
    if (!kernel_template.empty()) {
      try {
        tt::PickTemplate(w, kernel_template);
      } catch (const tt::UserError& e) {
        throw Error(ErrorCode::kInvalidArgument, e.what());
      }
    }
    Candidates found;
    found.source_name = path_;
    try {
      Exists(path_);
      const std::string self = device.fingerprint();
      found.device_known = false;
      {
        auto store = tt::SqliteHistoryStore::OpenReadOnly(path_);
        for (const auto& [id, d] : tt::HistoryQueries(*store).Devices()) found.device_known |= d.Fingerprint() == self;
      }
      const tt::BestQuery query{w, path_, "", kernel_template};
      // This device; then the same device name through another driver or with another number
      // of compute units; the same type of device; any other device (imported ones, such as
      // TopHub's, included).
      const std::vector<std::pair<std::function<bool(const tt::DeviceInfo&)>, std::string>> rungs = {
          {[&](const tt::DeviceInfo& d) { return d.Fingerprint() == self; }, ""},
          {[&](const tt::DeviceInfo& d) { return d.Fingerprint() != self && d.name == device.name; },
           "same device name, another driver or number of compute units"},
          {[&](const tt::DeviceInfo& d) {
             return d.name != device.name && !d.imported && !device.type.empty() && d.type == device.type;
           },
           "a device of the same type (" + device.type + ")"},
          {[&](const tt::DeviceInfo& d) {
             return d.name != device.name && (d.imported || device.type.empty() || d.type != device.type);
           },
           "another kind of device"},
      };
      for (size_t rung = 0; rung < rungs.size(); ++rung) {
        const auto best = tt::FindBestConfig(query, rungs[rung].first);
        if (!best) continue;
        Choice c;
        c.origin = rung > 0 ? Origin::kOtherDevice : best->fallback ? Origin::kSimilarWorkload : Origin::kExact;
        c.kernel_template = best->kernel_template;
        c.config_key = best->config_key;
        c.source_workload = best->source_workload;
        c.source_device = best->device;
        c.match_score = best->match_score;
        c.recorded_gflops = best->gflops;
        c.note = rungs[rung].second;
        found.choices.push_back(std::move(c));
      }
    } catch (const Error&) {
      throw;
    } catch (const tt::UserError& e) {
      throw Error(ErrorCode::kDatabase, e.what());
    } catch (const tt::EnvironmentError& e) {
      throw Error(ErrorCode::kDatabase, e.what());
    }
    return found;
  }

  static void Exists(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
      throw Error(ErrorCode::kDatabase, "history database " + path + " does not exist");
  }

 private:
  std::string path_;
};

}  // namespace

std::shared_ptr<const ConfigSource> OpenHistory(const std::string& path) {
  HistorySource::Exists(path);
  try {
    tt::SqliteHistoryStore::OpenReadOnly(path);  // refuses a file that is not a tensortune database
  } catch (const std::exception& e) {
    throw Error(ErrorCode::kDatabase, e.what());
  }
  return std::make_shared<HistorySource>(path);
}

}  // namespace tensortune
