#include "cli/import_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

#include "core/errors.h"
#include "history/sqlite_history_store.h"
#include "interchange/autotvm_mapping.h"
#include "interchange/kernel_tuner_cache.h"

namespace tt {
namespace {

constexpr size_t kErrorsShown = 20;

struct TaskCounts {
  int64_t imported = 0, already_present = 0, skipped = 0, bad = 0;
  std::map<std::string, int64_t> skip_reasons;
};

// What one file holds: tasks to write, counts by AutoTVM task name, bad lines.
struct ReadFile {
  std::string path;
  std::vector<ImportedTask> tasks;
  std::vector<std::string> task_names;  // of each entry of `tasks`
  std::map<std::string, TaskCounts> by_name;
  std::vector<std::string> errors;  // "file:line: why"
  int64_t records = 0;
};

ImportedTask& TaskFor(ReadFile& file, std::map<std::string, size_t>& index, const AutoTvmRecord& record,
                      const MappedTrial& trial) {
  const std::string key = record.target + "|" + std::string(trial.kernel->name()) + "|" + trial.workload.Key();
  auto [it, added] = index.emplace(key, file.tasks.size());
  if (added) {
    ImportedTask task;
    task.workload = trial.workload;
    task.flops = trial.kernel->Flops(trial.workload);
    task.kernel_template = {std::string(trial.kernel->name()), std::string(trial.kernel->op()), trial.kernel->SourceHash()};
    task.device = AutoTvmTargetDevice(record.target);
    file.tasks.push_back(std::move(task));
    file.task_names.push_back(record.task_name);
  }
  return file.tasks[it->second];
}

ReadFile ReadAutoTvmLog(const std::string& path, const std::string& text) {
  std::istringstream in(text);
  ReadFile file;
  file.path = path;
  AutoTvmMapper mapper;
  std::map<std::string, size_t> index;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    if (IsAutoTvmCommentLine(line)) continue;
    ++file.records;
    const auto parsed = ParseAutoTvmRecord(line);
    if (const auto* why = std::get_if<std::string>(&parsed)) {
      file.errors.push_back(fmt::format("{}:{}: {}", path, number, *why));
      continue;
    }
    const AutoTvmRecord& record = std::get<AutoTvmRecord>(parsed);
    TaskCounts& counts = file.by_name[record.task_name];
    const RecordMapping m = mapper.Map(record);
    if (m.outcome == RecordMapping::Outcome::kSkipped) {
      ++counts.skipped, ++counts.skip_reasons[m.reason];
    } else if (m.outcome == RecordMapping::Outcome::kBad) {
      ++counts.bad;
      file.errors.push_back(fmt::format("{}:{}: {}: {}", path, number, record.task_name, m.reason));
    } else {
      TrialRecord trial;
      trial.config_key = m.trial.config_key;
      trial.config_json = m.trial.config_json;
      trial.result = m.trial.result;
      trial.started_at = trial.finished_at = m.trial.measured_at;
      TaskFor(file, index, record, m.trial).trials.push_back(std::move(trial));
    }
  }
  return file;
}

// A Kernel Tuner cache file: one user-defined kernel, its space and its trials.
ReadFile ReadKernelTunerCache(const std::string& path, const std::string& text) {
  ReadFile file;
  file.path = path;
  KernelTunerCache cache;
  try {
    cache = ParseKernelTunerCache(text);
  } catch (const UserError& e) {
    file.errors.push_back(path + ": " + e.what());
    return file;
  }
  for (const auto& error : cache.errors) file.errors.push_back(path + ": " + error);
  TaskCounts& counts = file.by_name[cache.kernel_name];
  counts.bad = static_cast<int64_t>(cache.errors.size());
  file.records = static_cast<int64_t>(cache.trials.size() + cache.errors.size());
  ImportedTask task;
  task.workload = cache.workload;
  task.flops = kUserSpaceFlops;
  task.kernel_template = {cache.kernel_name, cache.workload.op, TextHash(cache.space_json)};
  task.device = cache.device;
  task.space_json = cache.space_json;
  for (const auto& t : cache.trials) {
    TrialRecord trial;
    trial.config_key = t.config_key;
    trial.config_json = t.config_json;
    trial.result = t.result;
    trial.started_at = trial.finished_at = t.measured_at;
    task.trials.push_back(std::move(trial));
  }
  file.tasks.push_back(std::move(task));
  file.task_names.push_back(cache.kernel_name);
  return file;
}

ReadFile Read(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UserError(path + " is a directory, not a log or cache file");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || in.bad()) throw UserError("cannot read " + path);
  return LooksLikeKernelTunerCache(text.str()) ? ReadKernelTunerCache(path, text.str()) : ReadAutoTvmLog(path, text.str());
}

void PrintErrors(const std::vector<std::string>& errors, std::ostream& err) {
  for (size_t i = 0; i < errors.size() && i < kErrorsShown; ++i) err << errors[i] << "\n";
  if (errors.size() > kErrorsShown) err << fmt::format("... and {} more bad lines\n", errors.size() - kErrorsShown);
}

void PrintSummary(const ReadFile& file, std::ostream& out) {
  int64_t imported = 0, present = 0, skipped = 0;
  for (const auto& [name, c] : file.by_name) imported += c.imported, present += c.already_present, skipped += c.skipped;
  out << fmt::format("{}: {} records: {} imported, {} already present, {} skipped, {} bad\n", file.path, file.records,
                     imported, present, skipped, file.errors.size());
  for (const auto& [name, c] : file.by_name) {
    out << fmt::format("  {}: {} imported, {} already present, {} skipped", name, c.imported, c.already_present,
                       c.skipped);
    if (c.bad) out << fmt::format(", {} bad", c.bad);
    std::string reasons;
    for (const auto& [reason, n] : c.skip_reasons) reasons += fmt::format("{}{} {}", reasons.empty() ? "" : "; ", n, reason);
    out << (reasons.empty() ? "" : " (" + reasons + ")") << "\n";
  }
}

}  // namespace

int RunImport(const ImportOptions& o, std::ostream& out, std::ostream& err) {
  if (o.files.empty()) throw UserError("no file to import");
  std::vector<ReadFile> files;
  size_t bad = 0;
  for (const auto& path : o.files) {
    files.push_back(Read(path));
    PrintErrors(files.back().errors, err);
    bad += files.back().errors.size();
  }
  if (bad > 0 && !o.skip_bad)
    throw UserError(fmt::format("{} bad lines: nothing imported (--skip-bad imports the good records)", bad));
  auto store = SqliteHistoryStore::Open(o.db);
  for (ReadFile& file : files) {
    const auto counts = store->Import(file.tasks, "tensortune import " + file.path);
    for (size_t i = 0; i < counts.size(); ++i) {
      TaskCounts& c = file.by_name[file.task_names[i]];
      c.imported += counts[i].added;
      c.already_present += counts[i].already_present;
    }
    PrintSummary(file, out);
  }
  return 0;
}

}  // namespace tt
