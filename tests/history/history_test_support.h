#pragma once
// Shared by the history tests: a scratch directory and a small task to record.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "history/sqlite_history_store.h"

namespace tt::testing {

// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() / ("tt_history_" + std::string(test ? test->name() : "x") + "_" +
                                                      std::to_string(getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline Workload GemmWorkload(int64_t m = 64) { return {"gemm", {{"m", m}, {"n", 32}, {"k", 16}}}; }

inline TemplateRef GemmTemplate() { return {"gemm_tiled", "gemm", "hash-1"}; }

inline DeviceInfo CpuDevice(const std::string& name = "pthread-cpu") {
  DeviceInfo d;
  d.platform = "Portable Computing Language";
  d.name = name;
  d.driver_version = "3.1";
  d.type = "cpu";
  d.compute_units = 2;
  d.max_work_group_size = 4096;
  d.local_mem_bytes = 1 << 20;
  d.global_mem_bytes = size_t{6} << 30;
  return d;
}

inline TaskIds GemmTask(SqliteHistoryStore& store, const DeviceInfo& device = CpuDevice()) {
  return store.EnsureTask(GemmWorkload(), 65536, GemmTemplate(), device);
}

inline TrialRecord OkTrial(const std::string& key, std::vector<double> times, int batch = 0) {
  TrialRecord r;
  r.config_key = key;
  r.config_json = R"([["tile","ot",")" + key + R"("]])";
  r.result = MeasureResult::Success(std::move(times), 65536, 0.25);
  r.batch = batch;
  return r;
}

inline TrialRecord FailedTrial(const std::string& key, MeasureStatus status, int batch = 0) {
  TrialRecord r = OkTrial(key, {}, batch);
  r.result = MeasureResult::Failure(status, "failed: " + key);
  return r;
}

// Writes a closed tensortune database of many 4 KiB pages (no -wal file left beside it).
inline std::string DatabaseOfManyPages(const std::string& path) {
  auto store = SqliteHistoryStore::Open(path);
  const TaskIds task = GemmTask(*store);
  std::vector<TrialRecord> trials;
  for (int i = 0; i < 400; ++i) trials.push_back(OkTrial("config-" + std::to_string(i) + std::string(40, 'x'), {1e-3}));
  store->RecordBatch(store->BeginRun(task, {}), task, trials);
  store.reset();
  EXPECT_GE(std::filesystem::file_size(path), 20u * 4096);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
  return path;
}

// Damages a database as a failed copy or a stray write would, without changing its length.
inline void OverwriteMiddleThird(const std::string& path) {
  const auto size = std::filesystem::file_size(path);
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(static_cast<std::streamoff>(size / 3 / 4096 * 4096));
  const std::string garbage(size / 3, '\xa5');
  file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
}

// A child process that calls `begin` (e.g. begins a run) and then lives until it is killed;
// its pid, once `begin` returned. The caller kills and reaps it.
inline pid_t StartLivingProcess(const std::function<void()>& begin) {
  int ready[2];
  if (pipe(ready) != 0) return -1;
  const pid_t child = fork();
  if (child == 0) {
    begin();
    char byte = 1;
    (void)!write(ready[1], &byte, 1);
    pause();
    _exit(0);
  }
  char byte = 0;
  const bool began = child > 0 && read(ready[0], &byte, 1) == 1;
  close(ready[0]);
  close(ready[1]);
  return began ? child : -1;
}

}  // namespace tt::testing
