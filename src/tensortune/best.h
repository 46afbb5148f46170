#pragma once
// The best recorded configuration of a workload, for programs that embed tensortune: the
// fastest verified trial of exactly this workload when the history has one, else a fallback
// adapted from the most similar recorded workload of the same operator and template. Reads
// the database only; needs no OpenCL device.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "core/workload.h"

namespace tt {

struct BestQuery {
  Workload workload;            // e.g. ParseWorkload("gemm", "512,512,512")
  std::string db;               // the history database
  std::string device;           // part of a recorded device's name or fingerprint; empty: any
  std::string kernel_template;  // empty: every template of the operator
};

struct BestConfig {
  std::string kernel_template;
  std::string device;         // the recorded device's name
  std::string config_key;     // "tile_x=[1,4,8,16];vec=4;..."
  std::string config_json;    // AutoTVM-style entity list
  std::string build_options;  // the template's -D options for this workload
  double gflops = 0;          // measured for this workload; for a fallback, at its source workload
  bool fallback = false;
  double match_score = 1;       // of the source workload (1 for an exact record)
  std::string source_workload;  // where the config was measured
};

// nullopt when the history holds nothing usable for the workload. Throws UserError for a
// database that cannot be opened, an unknown template, or a device that matches nothing.
std::optional<BestConfig> FindBestConfig(const BestQuery& query);
// The same over only the recorded devices (matching query.device) that `accept_device`
// accepts: the runtime asks for its own device, then for devices of the same name, of the
// same type, ... (src/runtime/history_source.cpp).
std::optional<BestConfig> FindBestConfig(const BestQuery& query,
                                         const std::function<bool(const DeviceInfo&)>& accept_device);

}  // namespace tt
