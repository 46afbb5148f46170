#pragma once
// A recorded space to replay, export or merge, written as a run would write it.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "history/sqlite_history_store.h"
#include "ops/matmul_templates.h"

namespace tt::testing {

// Records `count` valid configs (all of them when there are fewer) of a synthetic space for
// gemm 16,16,16 as if measured: GFLOPS rise towards one config. `pins` ("knob=value") cut a
// smaller space out of it, as `--pin` does.
inline std::string RecordSyntheticSpace(const std::filesystem::path& dir, size_t count, double* best,
                                        const std::vector<std::pair<std::string, std::string>>& pins = {}) {
  const auto db = (dir / "recorded.db").string();
  auto store = SqliteHistoryStore::Open(db);
  const KernelTemplate& gemm = GemmTiledTemplate();
  const Workload w = ParseWorkload("gemm", "16,16,16");
  DeviceInfo device{"Test platform", "recorded-cpu", "1.0", "cpu", 2, 4096, 512 * 1024, 1 << 30};
  ConfigSpace space = gemm.Space(w, {device.max_work_group_size, device.local_mem_bytes});
  for (const auto& [knob, value] : pins) space.Pin(knob, value);
  const TaskIds ids = store->EnsureTask(w, gemm.Flops(w), {"gemm_tiled", "gemm", gemm.SourceHash()}, device);
  const int64_t run = store->BeginRun(ids, {"synthetic", "", 0, "test", static_cast<int64_t>(count)});
  std::vector<TrialRecord> records;
  *best = 0;
  // 7919 is prime, so the steps visit every index of a space whose size it does not divide.
  for (uint64_t step = 0; records.size() < count && step < space.Size(); ++step) {
    const Config c = space.FromIndex(step * 7919 % space.Size());
    if (!space.IsValid(c)) continue;
    const double gflops = 1 + static_cast<double>(space.Value(c, "tile_x")[3] * space.Value(c, "tile_y")[3]);
    *best = std::max(*best, gflops);
    records.push_back({space.Key(c), space.ToJson(c),
                       MeasureResult::Success({gemm.Flops(w) / gflops * 1e-9}, gemm.Flops(w), 0.1), 0, 0, "", ""});
  }
  store->RecordBatch(run, ids, records);
  store->EndRun(run, "finished");
  return db;
}

}  // namespace tt::testing
