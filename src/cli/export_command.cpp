#include "cli/export_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sstream>

#include "cli/csv_field.h"
#include "cli/whole_file.h"
#include "core/errors.h"
#include "history/sqlite_history_store.h"
#include "interchange/autotvm_mapping.h"
#include "interchange/kernel_tuner_cache.h"

namespace tt {
namespace {

constexpr const char* kCsvHeader =
    "trial_id,run_id,tuner,op,workload,template,device,imported,config_key,status,time_s,gflops,compile_s,"
    "times_s,started_at,finished_at,error";

std::string CsvRow(const TrialWithTask& t) {
  const MeasureResult& m = t.trial.result;
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", t.trial_id, t.trial.run_id, CsvField(t.tuner),
                     t.workload.op, CsvField(t.workload.Key()), t.kernel_template.name, CsvField(t.device.name),
                     t.device.imported ? 1 : 0, CsvField(t.trial.config_key), ToString(m.status), m.time_s, m.gflops,
                     m.compile_s, CsvField(fmt::format("{}", fmt::join(m.times_s, ";"))), t.trial.started_at,
                     t.trial.finished_at, CsvField(m.error));
}

nlohmann::ordered_json JsonRow(const TrialWithTask& t) {
  const MeasureResult& m = t.trial.result;
  return {{"trial_id", t.trial_id},       {"run_id", t.trial.run_id},
          {"tuner", t.tuner},             {"op", t.workload.op},
          {"workload", t.workload.Key()}, {"template", t.kernel_template.name},
          {"device", t.device.name},      {"imported", t.device.imported},
          {"config_key", t.trial.config_key}, {"config", nlohmann::json::parse(t.trial.config_json)},
          {"status", ToString(m.status)}, {"time_s", m.time_s},
          {"gflops", m.gflops},           {"compile_s", m.compile_s},
          {"times_s", m.times_s},         {"started_at", t.trial.started_at},
          {"finished_at", t.trial.finished_at}, {"error", m.error}};
}

// T4 (the auto-tuning community's results format, schema 1.0.0, as Kernel Tuner converts its
// cache files to it): times in milliseconds, the configuration by knob name.
std::string T4Invalidity(MeasureStatus status) {
  switch (status) {
    case MeasureStatus::kOk: return "correct";
    case MeasureStatus::kInvalidConfig: return "constraints";
    case MeasureStatus::kCompileError: return "compile";
    case MeasureStatus::kRuntimeError: return "runtime";
    case MeasureStatus::kWrongAnswer: return "correctness";
    case MeasureStatus::kTimeout: return "timeout";
  }
  return "runtime";
}

nlohmann::ordered_json T4Result(const TrialWithTask& t) {
  const MeasureResult& m = t.trial.result;
  nlohmann::ordered_json configuration = nlohmann::ordered_json::object();
  for (const auto& knob : nlohmann::json::parse(t.trial.config_json)) configuration[knob[0].get<std::string>()] = knob[2];
  std::vector<double> runtimes_ms;
  for (double s : m.times_s) runtimes_ms.push_back(1e3 * s);
  nlohmann::ordered_json measurements = nlohmann::ordered_json::array();
  if (m.ok()) measurements.push_back({{"name", "time"}, {"value", 1e3 * m.time_s}, {"unit", "ms"}});
  return {{"timestamp", t.trial.finished_at},
          {"configuration", configuration},
          {"times", {{"compilation_time", 1e3 * m.compile_s}, {"framework", 0}, {"search_algorithm", 0}, {"validation", 0},
                     {"runtimes", runtimes_ms}}},
          {"invalidity", T4Invalidity(m.status)},
          {"correctness", m.status == MeasureStatus::kWrongAnswer ? 0 : 1},
          {"measurements", measurements},
          {"objectives", {"time"}}};
}

// Trials an AutoTVM log cannot carry: of sketches this build no longer has, and of imported
// Kernel Tuner kernels (user-defined spaces, whatever their name: a kernel named gemm_tiled is
// not our gemm_tiled).
struct LeftOut {
  int64_t unknown = 0;
  int64_t user_defined = 0;
  std::set<std::string> user_kernels;
};

LeftOut WriteAutoTvm(const std::vector<TrialWithTask>& trials, std::ostream& out) {
  LeftOut left;
  for (const auto& t : trials) {
    const KernelTemplate* kernel = FindTemplate(t.kernel_template.name);
    if (t.kernel_template.op == kUserSpaceOp || t.workload.op == kUserSpaceOp) {
      ++left.user_defined;
      left.user_kernels.insert(t.kernel_template.name);
      continue;
    }
    if (!kernel || kernel->op() != t.kernel_template.op || kernel->op() != t.workload.op) {
      ++left.unknown;
      continue;
    }
    out << FormatAutoTvmRecord(ToAutoTvmRecord(t.workload, *kernel, t.trial.config_json, t.trial.result,
                                               AutoTvmTargetOf(t.device), t.trial.finished_at))
        << "\n";
  }
  return left;
}

}  // namespace

int RunExport(const ExportOptions& o, std::ostream& out, std::ostream& err) {
  if (o.format != "autotvm" && o.format != "csv" && o.format != "json" && o.format != "t4")
    throw UserError("unknown --format '" + o.format + "': expected autotvm, csv, json or t4");
  if (!std::filesystem::exists(o.db)) throw UserError("no history database at " + o.db);
  const auto trials = SqliteHistoryStore::Open(o.db)->TrialsWithTasks({o.op, o.workload, o.run, o.device});
  std::ostringstream text;
  if (o.format == "autotvm") {
    const LeftOut left = WriteAutoTvm(trials, text);
    const std::string user = left.user_defined == 0 ? ""
        : fmt::format("{} trials of imported Kernel Tuner kernels ({}) have no AutoTVM form (export them with --format "
                      "t4, json or csv)", left.user_defined, fmt::join(left.user_kernels, ", "));
    if (left.user_defined + left.unknown == static_cast<int64_t>(trials.size()) && left.user_defined > 0)
      throw UserError("nothing to export as an AutoTVM log: " + user);
    if (left.user_defined > 0) err << "tensortune: left out " << user << "\n";
    if (left.unknown > 0)
      err << fmt::format("tensortune: {} trials of sketches this build does not have were left out\n", left.unknown);
  } else if (o.format == "csv") {
    text << kCsvHeader << "\n";
    for (const auto& t : trials) text << CsvRow(t);
  } else if (o.format == "t4") {
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    for (const auto& t : trials) results.push_back(T4Result(t));
    text << nlohmann::ordered_json{{"schema_version", "1.0.0"}, {"results", results}}.dump(
                1, ' ', false, nlohmann::json::error_handler_t::replace)
         << "\n";
  } else {
    // One trial per line: diffable, and greppable like a log.
    text << "[";
    for (size_t i = 0; i < trials.size(); ++i)
      text << (i ? ",\n " : "\n ") << JsonRow(trials[i]).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text << "\n]\n";
  }
  if (o.out.empty())
    out << text.str();
  else
    WriteWholeFile(o.out, text.str());
  err << fmt::format("tensortune: exported {} trials\n", trials.size());
  return 0;
}

}  // namespace tt
