#include "cli/best_command.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>

#include "core/errors.h"
#include "ops/kernel_template.h"
#include "tensortune/best.h"

namespace tt {

int RunBest(const BestOptions& o, std::ostream& out, std::ostream& err) {
  if (!o.pins.empty()) throw UserError("--pin has no meaning for best");
  const Workload workload = ParseWorkload(o.op, o.shape, o.shape_flags);
  if (!o.kernel_template.empty()) PickTemplate(workload, o.kernel_template);  // refuses an unknown one
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.db, ec)) throw UserError("database " + o.db + " does not exist");

  const auto best = FindBestConfig({workload, o.db, o.device, o.kernel_template});
  if (!best) {
    err << "tensortune: no usable history for " << workload.Key() << " in " << o.db
        << (o.kernel_template.empty() ? "" : " with template " + o.kernel_template)
        << ": no verified trial of it, and no recorded " << workload.op
        << " workload whose configs fit its space; tune it first\n";
    return 1;
  }
  nlohmann::ordered_json j;
  j["workload"] = workload.Key();
  j["template"] = best->kernel_template;
  j["device"] = best->device;
  j["fallback"] = best->fallback;
  j["source_workload"] = best->source_workload;
  j["match_score"] = best->match_score;
  j["gflops"] = best->gflops;
  j["config_key"] = best->config_key;
  j["config"] = nlohmann::json::parse(best->config_json);
  j["build_options"] = best->build_options;
  out << j.dump(2) << "\n";
  return 0;
}

}  // namespace tt
