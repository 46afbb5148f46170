// history_lookup: how long finding warm-start candidates for a new workload takes in a large
// history. Generates a synthetic history (by default 1,000,000 trials of gemm_tiled over 1,000
// GEMM workloads, random configs with made-up GFLOPS, one device), then times what
// `--tuner auto` and `best` do for an unseen workload: open the database, rank the records of
// every recorded workload by the filtering metric m(h, i), adapt the best to the new space.
//
//   history_lookup DB [WORKLOADS [TRIALS_PER_WORKLOAD]]
// An existing DB is reused as it is (generation takes a while).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_common.h"
#include "core/rng.h"
#include "history/history_queries.h"
#include "ops/kernel_template.h"
#include "ranking/candidates.h"
#include "space/knob_schema.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

tt::DeviceInfo SyntheticDevice() {
  tt::DeviceInfo d;
  d.platform = "synthetic";
  d.name = "synthetic-gpu";
  d.driver_version = "1";
  d.type = "gpu";
  d.compute_units = 64;
  d.max_work_group_size = 1024;
  d.local_mem_bytes = 65536;
  d.global_mem_bytes = size_t{8} << 30;
  return d;
}

constexpr tt::DeviceLimits kLimits{1024, 65536};

// Powers of two and a few multiples of 3, 5, 7 between 16 and 2048: extents as layers have.
int64_t Extent(tt::Rng& rng) {
  static const int64_t choices[] = {16,  24,  32,  48,  64,  96,  112, 128,  160,  192, 224,
                                    256, 320, 384, 448, 512, 640, 768, 1024, 1536, 2048};
  return choices[rng.Below(std::size(choices))];
}

void Generate(const std::string& db, long workloads, long trials_per_workload) {
  const auto start = Clock::now();
  auto store = tt::SqliteHistoryStore::Open(db);
  tt::Rng rng(1);
  long recorded = 0;
  for (long w = 0; recorded < workloads; ++w) {
    const tt::Workload workload{"gemm", {{"m", Extent(rng)}, {"n", Extent(rng)}, {"k", Extent(rng)}}};
    const tt::KernelTemplate& kernel = tt::PickTemplate(workload, "gemm_tiled");
    const tt::ConfigSpace space = kernel.Space(workload, kLimits);
    const tt::TemplateRef ref{std::string(kernel.name()), "gemm", kernel.SourceHash(), tt::KnobSchema(space)};
    const tt::TaskIds ids = store->EnsureTask(workload, kernel.Flops(workload), ref, SyntheticDevice());
    if (!store->Trials(ids).empty()) continue;  // this shape came up before
    const int64_t run = store->BeginRun(ids, {"random", "", 1, "history_lookup", trials_per_workload});
    std::vector<tt::TrialRecord> trials;
    for (long t = 0; t < trials_per_workload; ++t) {
      const tt::Config c = space.Random(rng);
      const double gflops = 1 + static_cast<double>(rng.Below(5000)) / 10;
      tt::TrialRecord r;
      r.config_key = space.Key(c);
      r.config_json = space.ToJson(c);
      r.result = t % 5 == 4
                     ? tt::MeasureResult::Failure(tt::MeasureStatus::kCompileError, "synthetic")
                     : tt::MeasureResult::Success({kernel.Flops(workload) / gflops / 1e9}, kernel.Flops(workload), 0.1);
      trials.push_back(std::move(r));
    }
    store->RecordBatch(run, ids, trials);
    ++recorded;
  }
  std::printf("generated %ld workloads x %ld trials in %.1f s\n", workloads, trials_per_workload, Seconds(start));
}

struct Lookup {
  double seconds = 0;
  tt::CandidateSearch search;
  size_t adapted = 0;
};

// What a warm start does for a new workload, from opening the database on.
Lookup FindFor(const std::string& db, const tt::Workload& workload) {
  const auto start = Clock::now();
  auto store = tt::SqliteHistoryStore::Open(db);
  const tt::HistoryQueries queries(*store);
  const tt::KernelTemplate& kernel = tt::PickTemplate(workload, "gemm_tiled");
  const tt::ConfigSpace space = kernel.Space(workload, kLimits);
  const tt::HistoryScope scope{
      queries.TemplateVersions(std::string(kernel.name()), tt::KnobSchema(space), kernel.SourceHash()),
      queries.DeviceId(SyntheticDevice().Fingerprint())};
  Lookup lookup;
  lookup.search = tt::FindCandidates(*store, scope, workload, tt::TargetExtentsOf(space));
  for (const auto& r : lookup.search.records) {
    const auto a = tt::AdaptConfig(space, r.values);
    if (a && !a->why_invalid && ++lookup.adapted == 16) break;  // gga's first population
  }
  lookup.seconds = Seconds(start);
  return lookup;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: %s DB [WORKLOADS [TRIALS_PER_WORKLOAD]]\n", argv[0]);
    return 2;
  }
  const std::string db = argv[1];
  const long workloads = argc > 2 ? bench::ParseCount(argv[0], argv[2], "WORKLOADS", 1) : 1000;
  const long trials = argc > 3 ? bench::ParseCount(argv[0], argv[3], "TRIALS_PER_WORKLOAD", 1) : 1000;
  if (!std::filesystem::exists(db)) Generate(db, workloads, trials);

  const std::vector<tt::Workload> unseen{{"gemm", {{"m", 200}, {"n", 300}, {"k", 500}}},
                                         {"gemm", {{"m", 1000}, {"n", 96}, {"k", 777}}},
                                         {"gemm", {{"m", 384}, {"n", 384}, {"k", 100}}}};
  for (const auto& workload : unseen) {
    std::vector<double> times;
    Lookup last;
    for (int repeat = 0; repeat < 5; ++repeat) {
      last = FindFor(db, workload);
      times.push_back(last.seconds);
    }
    const double first = times.front();
    std::sort(times.begin(), times.end());
    std::printf(
        "%s: %lld workloads, %lld records read, best match %s (score %.2f), %zu candidates adapted; "
        "lookup median %.1f ms of 5 (min %.1f ms, first %.1f ms)\n",
        workload.Key().c_str(), static_cast<long long>(last.search.workloads),
        static_cast<long long>(last.search.records_read), last.search.best_match.Key().c_str(),
        last.search.best_match_score, last.adapted, 1e3 * times[2], 1e3 * times[0], 1e3 * first);
  }
  return 0;
}
