#include "cli/export_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>

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

// The configuration as a JSON value; a database's text that is not a list of [name, kind,
// value] entries is no configuration tensortune wrote.
nlohmann::json ConfigJson(const TrialWithTask& t) {
  nlohmann::json config = nlohmann::json::parse(t.trial.config_json, nullptr, false);
  bool entries = config.is_array();
  for (const auto& knob : config) entries = entries && knob.is_array() && knob.size() == 3 && knob[0].is_string();
  if (!entries)
    throw UserError("trial " + std::to_string(t.trial_id) + " has a config_json that is not a list of knobs");
  return config;
}

std::string CsvRow(const TrialWithTask& t) {
  const MeasureResult& m = t.trial.result;
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", t.trial_id, t.trial.run_id,
                     CsvField(t.tuner), CsvField(t.workload.op), CsvField(t.workload.Key()),
                     CsvField(t.kernel_template.name), CsvField(t.device.name), t.device.imported ? 1 : 0,
                     CsvField(t.trial.config_key), ToString(m.status), m.time_s, m.gflops, m.compile_s,
                     CsvField(fmt::format("{}", fmt::join(m.times_s, ";"))), CsvField(t.trial.started_at),
                     CsvField(t.trial.finished_at), CsvField(m.error));
}

nlohmann::ordered_json JsonRow(const TrialWithTask& t) {
  const MeasureResult& m = t.trial.result;
  return {{"trial_id", t.trial_id},
          {"run_id", t.trial.run_id},
          {"tuner", t.tuner},
          {"op", t.workload.op},
          {"workload", t.workload.Key()},
          {"template", t.kernel_template.name},
          {"device", t.device.name},
          {"imported", t.device.imported},
          {"config_key", t.trial.config_key},
          {"config", ConfigJson(t)},
          {"status", ToString(m.status)},
          {"time_s", m.time_s},
          {"gflops", m.gflops},
          {"compile_s", m.compile_s},
          {"times_s", m.times_s},
          {"started_at", t.trial.started_at},
          {"finished_at", t.trial.finished_at},
          {"error", m.error}};
}

// T4 (the auto-tuning community's results format, schema 1.0.0, as Kernel Tuner converts its
// cache files to it): times in milliseconds, the configuration by knob name.
std::string T4Invalidity(MeasureStatus status) {
  switch (status) {
    case MeasureStatus::kOk:
      return "correct";
    case MeasureStatus::kInvalidConfig:
      return "constraints";
    case MeasureStatus::kCompileError:
      return "compile";
    case MeasureStatus::kRuntimeError:
      return "runtime";
    case MeasureStatus::kWrongAnswer:
      return "correctness";
    case MeasureStatus::kTimeout:
      return "timeout";
  }
  return "runtime";
}

nlohmann::ordered_json T4Result(const TrialWithTask& t) {
  const MeasureResult& m = t.trial.result;
  nlohmann::ordered_json configuration = nlohmann::ordered_json::object();
  for (const auto& knob : ConfigJson(t)) configuration[knob[0].get<std::string>()] = knob[2];
  std::vector<double> runtimes_ms;
  for (double s : m.times_s) runtimes_ms.push_back(1e3 * s);
  nlohmann::ordered_json measurements = nlohmann::ordered_json::array();
  if (m.ok()) measurements.push_back({{"name", "time"}, {"value", 1e3 * m.time_s}, {"unit", "ms"}});
  return {{"timestamp", t.trial.finished_at},
          {"configuration", configuration},
          {"times",
           {{"compilation_time", 1e3 * m.compile_s},
            {"framework", 0},
            {"search_algorithm", 0},
            {"validation", 0},
            {"runtimes", runtimes_ms}}},
          {"invalidity", T4Invalidity(m.status)},
          {"correctness", m.status == MeasureStatus::kWrongAnswer ? 0 : 1},
          {"measurements", measurements},
          {"objectives", {"time"}}};
}

// One format's writer: a header, each trial, a footer.
class Writer {
 public:
  virtual ~Writer() = default;
  virtual void Begin(std::ostream&) {}
  virtual void Trial(const TrialWithTask& t, std::ostream& out) = 0;
  virtual void End(std::ostream&) {}
};

// Trials an AutoTVM log cannot carry: of sketches this build no longer has, and of imported
// Kernel Tuner kernels (user-defined spaces, whatever their name: a kernel named gemm_tiled is
// not our gemm_tiled).
class AutoTvmWriter : public Writer {
 public:
  void Trial(const TrialWithTask& t, std::ostream& out) override {
    const KernelTemplate* kernel = FindTemplate(t.kernel_template.name);
    if (t.kernel_template.op == kUserSpaceOp || t.workload.op == kUserSpaceOp) {
      ++user_defined_;
      user_kernels_.insert(t.kernel_template.name);
      return;
    }
    if (!kernel || kernel->op() != t.kernel_template.op || kernel->op() != t.workload.op) {
      ++unknown_;
      return;
    }
    ConfigJson(t);
    out << FormatAutoTvmRecord(ToAutoTvmRecord(t.workload, *kernel, t.trial.config_json, t.trial.result,
                                               AutoTvmTargetOf(t.device), t.trial.finished_at))
        << "\n";
    ++written_;
  }
  int64_t unknown() const { return unknown_; }
  int64_t written() const { return written_; }
  int64_t user_defined() const { return user_defined_; }
  std::string UserDefinedNote() const {
    return fmt::format(
        "{} trials of imported Kernel Tuner kernels ({}) have no AutoTVM form (export them with "
        "--format t4, json or csv)",
        user_defined_, fmt::join(user_kernels_, ", "));
  }

 private:
  int64_t unknown_ = 0, written_ = 0, user_defined_ = 0;
  std::set<std::string> user_kernels_;
};

class CsvWriter : public Writer {
 public:
  void Begin(std::ostream& out) override { out << kCsvHeader << "\n"; }
  void Trial(const TrialWithTask& t, std::ostream& out) override { out << CsvRow(t); }
};

// One trial per line: diffable, and greppable like a log.
class JsonWriter : public Writer {
 public:
  void Begin(std::ostream& out) override { out << "["; }
  void Trial(const TrialWithTask& t, std::ostream& out) override {
    nlohmann::ordered_json row = JsonRow(t);
    out << (first_ ? "\n " : ",\n ") << row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    first_ = false;
  }
  void End(std::ostream& out) override { out << "\n]\n"; }

 private:
  bool first_ = true;
};

// As nlohmann::json::dump(1) writes {"schema_version": ..., "results": [...]}, one result at a time.
class T4Writer : public Writer {
 public:
  void Begin(std::ostream& out) override { out << "{\n \"schema_version\": \"1.0.0\",\n \"results\": ["; }
  void Trial(const TrialWithTask& t, std::ostream& out) override {
    const std::string text = T4Result(t).dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
    out << (first_ ? "\n  " : ",\n  ");
    for (const char c : text) {
      out << c;
      if (c == '\n') out << "  ";
    }
    first_ = false;
  }
  void End(std::ostream& out) override { out << (first_ ? "]\n}\n" : "\n ]\n}\n"); }

 private:
  bool first_ = true;
};

}  // namespace

int RunExport(const ExportOptions& o, std::ostream& out, std::ostream& err) {
  std::unique_ptr<Writer> writer;
  AutoTvmWriter* autotvm = nullptr;
  if (o.format == "autotvm")
    writer.reset(autotvm = new AutoTvmWriter);
  else if (o.format == "csv")
    writer = std::make_unique<CsvWriter>();
  else if (o.format == "json")
    writer = std::make_unique<JsonWriter>();
  else if (o.format == "t4")
    writer = std::make_unique<T4Writer>();
  else
    throw UserError("unknown --format '" + o.format + "': expected autotvm, csv, json or t4");
  if (!std::filesystem::exists(o.db)) throw UserError("no history database at " + o.db);
  if (!o.out.empty()) CheckOutputPath(o.out, {o.db});
  const auto store = SqliteHistoryStore::OpenReadOnly(o.db);
  std::optional<WholeFile> file;
  std::optional<StandardOutput> standard;
  if (!o.out.empty())
    file.emplace(o.out);
  else if (&out == &std::cout)
    standard.emplace();
  std::ostream& text = file ? file->stream() : standard ? standard->stream() : out;
  int64_t trials = 0;
  writer->Begin(text);
  store->ForEachTrialWithTask({o.op, o.workload, o.run, o.device}, [&](const TrialWithTask& t) {
    writer->Trial(t, text);
    ++trials;
    if (text) return;
    if (file) file->Commit();  // these throw why the write failed
    if (standard) standard->Finish();
    CheckWritten(text, "standard output");
  });
  writer->End(text);
  if (autotvm && autotvm->written() == 0 && autotvm->user_defined() > 0)  // before anything is committed
    throw UserError("nothing to export as an AutoTVM log: " + autotvm->UserDefinedNote());
  if (file)
    file->Commit();
  else if (standard)
    standard->Finish();
  else
    CheckWritten(out, "standard output");
  if (autotvm && autotvm->user_defined() > 0) err << "tensortune: left out " << autotvm->UserDefinedNote() << "\n";
  if (autotvm && autotvm->unknown())
    err << fmt::format("tensortune: {} trials of sketches this build does not have were left out\n",
                       autotvm->unknown());
  err << fmt::format("tensortune: exported {} trials\n", trials);
  return 0;
}

}  // namespace tt
