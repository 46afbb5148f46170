#include "cli/import_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <zlib.h>

#include <climits>
#include <cstring>
#include <filesystem>
#include <map>
#include <ostream>
#include <sstream>

#include "cli/input_file.h"
#include "core/errors.h"
#include "history/sqlite_history_store.h"
#include "interchange/autotvm_mapping.h"
#include "interchange/kernel_tuner_cache.h"

namespace tt {
namespace {

constexpr size_t kErrorsShown = 20;
// Far above any log or cache file of records (TopHub's largest are tens of MiB).
constexpr size_t kMaxInputBytes = size_t{1} << 30;

struct TaskCounts {
  int64_t imported = 0, already_present = 0, skipped = 0, bad = 0;
  std::map<std::string, int64_t> skip_reasons;
};

// What one file holds: tasks to write, counts by AutoTVM task name, bad records.
struct ReadFile {
  std::string path;
  bool cache = false;  // a Kernel Tuner cache file: its records are cache entries, not lines
  std::vector<ImportedTask> tasks;
  std::vector<std::string> task_names;  // of each entry of `tasks`
  std::map<std::string, TaskCounts> by_name;
  std::string unusable;             // why nothing of the file can be read; empty when it can
  std::vector<std::string> errors;  // "file:line: why" or "file: cache entry 'key': why"
  std::vector<std::string> notes;   // how the file was read, printed under its counts
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
    task.kernel_template = {std::string(trial.kernel->name()), std::string(trial.kernel->op()),
                            trial.kernel->SourceHash()};
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
  int64_t format_01 = 0;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    if (IsAutoTvmCommentLine(line)) continue;
    ++file.records;
    const auto parsed = ParseAutoTvmRecord(line);
    if (const auto* why = std::get_if<std::string>(&parsed)) {
      file.errors.push_back(fmt::format("{}:{}: {}", path, number, *why));
      continue;
    }
    const AutoTvmRecord& record = std::get<AutoTvmRecord>(parsed);
    format_01 += record.format_01;
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
  if (format_01 > 0)
    file.notes.push_back(
        fmt::format("{} records in AutoTVM's record format 0.1 (TVM before 0.7), read under today's "
                    "task names where their knobs are today's templates'",
                    format_01));
  return file;
}

// The file's name without its folder and extensions: "caches/MI250X.json" -> "MI250X".
std::string FileStem(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  for (const char* ext : {".gz", ".json", ".cache"})
    if (name.size() > std::strlen(ext) && name.compare(name.size() - std::strlen(ext), std::string::npos, ext) == 0)
      name.erase(name.size() - std::strlen(ext));
  return name;
}

// A Kernel Tuner cache file: one user-defined kernel, its space and its trials.
ReadFile ReadKernelTunerCache(const std::string& path, const std::string& text, const std::string& device_name) {
  ReadFile file;
  file.path = path;
  file.cache = true;
  KernelTunerCache cache;
  try {
    cache = ParseKernelTunerCache(text);
  } catch (const UserError& e) {
    file.unusable = path + ": " + e.what();
    return file;
  }
  if (cache.device.name.empty()) {
    cache.device.name = device_name.empty() ? FileStem(path) : device_name;
    file.notes.push_back(device_name.empty() ? "device_name is empty: the device is named '" + cache.device.name +
                                                   "' after the file (--device-name NAME names it)"
                                             : "device_name is empty: the device is named '" + cache.device.name +
                                                   "' by --device-name");
  } else if (!device_name.empty()) {
    file.notes.push_back("the cache names its device '" + cache.device.name +
                         "': --device-name names only the devices of caches without one");
  }
  if (cache.open)
    file.notes.push_back(
        "an open cache (an interrupted run's, without its closing brackets), read as Kernel Tuner reads it");
  file.notes.push_back(
      fmt::format("kernel {}: imported space {}@{} of {} configurations on {} (compare --space {} "
                  "replays it)",
                  cache.kernel_name, cache.kernel_name, TextHash(cache.space_json).substr(0, 8), cache.trials.size(),
                  cache.device.name, cache.kernel_name));
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

// Published Kernel Tuner caches come gzip-compressed (MI250X.json.gz): read as they are.
std::string Gunzipped(const std::string& path, const std::string& bytes) {
  constexpr size_t kMaxBytes = size_t{1} << 30;  // far above any file of records; a bomb stops here
  if (bytes.size() > UINT_MAX) throw UserError(path + ": a gzip file too large to be a log or cache file");
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw EnvironmentError("zlib cannot start");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  std::string text;
  std::vector<char> buffer(1 << 16);
  for (int rc = Z_OK; rc != Z_STREAM_END;) {
    z.next_out = reinterpret_cast<Bytef*>(buffer.data());
    z.avail_out = static_cast<uInt>(buffer.size());
    rc = inflate(&z, Z_NO_FLUSH);
    text.append(buffer.data(), buffer.size() - z.avail_out);
    if ((rc != Z_OK && rc != Z_STREAM_END) || text.size() > kMaxBytes) {
      inflateEnd(&z);
      throw UserError(path + (text.size() > kMaxBytes ? ": decompresses to more than 1 GiB"
                                                      : ": not a whole gzip file (truncated?)"));
    }
  }
  inflateEnd(&z);
  return text;
}

ReadFile Read(const std::string& path, const std::string& device_name) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UserError(path + " is a directory, not a log or cache file");
  std::string text = ReadInputFile(path, kMaxInputBytes);
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b) {
    try {
      text = Gunzipped(path, text);
    } catch (const UserError& e) {
      ReadFile file;
      file.path = path;
      file.unusable = e.what();
      return file;
    }
  }
  return LooksLikeKernelTunerCache(text) ? ReadKernelTunerCache(path, text, device_name) : ReadAutoTvmLog(path, text);
}

std::string BadRecords(const ReadFile& file, size_t n) {
  return fmt::format("{} bad {}", n,
                     file.cache ? (n == 1 ? "cache entry" : "cache entries") : (n == 1 ? "line" : "lines"));
}

void PrintErrors(const ReadFile& file, std::ostream& err) {
  if (!file.unusable.empty()) err << file.unusable << "\n";
  for (size_t i = 0; i < file.errors.size() && i < kErrorsShown; ++i) err << file.errors[i] << "\n";
  if (file.errors.size() > kErrorsShown)
    err << fmt::format("{}: ... and {} more\n", file.path, BadRecords(file, file.errors.size() - kErrorsShown));
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
    for (const auto& [reason, n] : c.skip_reasons)
      reasons += fmt::format("{}{} {}", reasons.empty() ? "" : "; ", n, reason);
    out << (reasons.empty() ? "" : " (" + reasons + ")") << "\n";
  }
  for (const auto& note : file.notes) out << "  " << note << "\n";
}

}  // namespace

int RunImport(const ImportOptions& o, std::ostream& out, std::ostream& err) {
  if (o.files.empty()) throw UserError("no file to import");
  std::vector<ReadFile> files;
  std::vector<std::string> problems;  // per file: "2 bad lines in a.log", "b.json unusable"
  for (const auto& path : o.files) {
    files.push_back(Read(path, o.device_name));
    const ReadFile& file = files.back();
    PrintErrors(file, err);
    if (!file.unusable.empty())
      problems.push_back(path + " unusable");
    else if (!file.errors.empty())
      problems.push_back(BadRecords(file, file.errors.size()) + " in " + path);
  }
  if (!problems.empty() && !o.skip_bad)
    throw UserError(fmt::format("{}: nothing imported (--skip-bad imports the good records of the usable files)",
                                fmt::join(problems, ", ")));
  auto store = SqliteHistoryStore::Open(o.db);
  for (ReadFile& file : files) {
    if (!file.unusable.empty()) {
      out << file.path << ": unusable, nothing of it imported\n";
      continue;
    }
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
