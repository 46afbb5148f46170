// The cross-task cost model against a per-task cold start, on a recorded history: each workload
// of a template with enough ok records is held back in turn; the cross-task model is trained on
// the other workloads' records, a model of the same kind on FEW of the held-back workload's own
// records, and both (and random scores) rank the held-back workload's other records. Prints
// Spearman's rho and Kendall's tau against the measured GFLOPS, per workload and on average
// (the per-task model and random over 5 draws each). bench/cross_task_rank.sh runs it.
//
//   cross_task_rank DB TEMPLATE WORKLOAD FEW   (WORKLOAD: any of the template's operator)
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/rng.h"
#include "history/sqlite_history_store.h"
#include "model/cross_task_model.h"
#include "model/rank_correlation.h"
#include "ops/kernel_template.h"
#include "schedule/tuning_task.h"
#include "warmstart/flow.h"

namespace {

using namespace tt;

constexpr DeviceLimits kLimits{1024, 65536};  // generous: the records were valid where measured
constexpr int kDraws = 5;

struct Correlation {
  double rho = 0, tau = 0;
};

Correlation Rank(const std::vector<float>& scores, const std::vector<double>& truth) {
  const std::vector<double> s(scores.begin(), scores.end());
  return {SpearmanRho(s, truth), KendallTau(s, truth)};
}

TaskRecords Subset(const TaskRecords& all, const std::vector<size_t>& rows) {
  TaskRecords subset;
  subset.workload_features = all.workload_features;
  for (size_t r : rows) subset.configs.push_back(all.configs[r]), subset.gflops.push_back(all.gflops[r]);
  return subset;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: cross_task_rank DB TEMPLATE WORKLOAD FEW\n");
    return 2;
  }
  const auto store = SqliteHistoryStore::OpenReadOnly(argv[1]);
  const KernelTemplate* kernel = FindTemplate(argv[2]);
  const size_t few = std::stoul(argv[4]);
  if (!kernel) {
    std::fprintf(stderr, "unknown template %s\n", argv[2]);
    return 2;
  }
  std::vector<Workload> workloads;
  std::vector<TaskRecords> records;
  // Every version of the template with today's knob schema (a space of any workload has it).
  const TemplateRef ref = TemplateRefOf(*kernel, kernel->Space(Workload::FromKey(argv[3]), kLimits));
  const std::vector<int64_t> versions = store->TemplateVersions(ref.name, ref.knob_schema, ref.source_hash);
  for (const RecordedWorkload& rw : store->WorkloadsWithOkTrials(std::string(kernel->op()), {versions, 0})) {
    TaskRecords task;
    task.workload_features = WorkloadFeatures(rw.workload);
    for (const LeanTrial& t : store->FastestTrials(rw.id, {versions, 0}, 100000)) {
      auto values = ParseConfigKey(t.config_key);
      if (!values) continue;
      task.configs.push_back(std::move(*values));
      task.gflops.push_back(t.gflops);
    }
    workloads.push_back(rw.workload);
    records.push_back(std::move(task));
  }
  fmt::print(
      "| held-back workload | ok records | cross-task rho / tau | own {} records rho / tau | random rho / tau |\n",
      few);
  fmt::print("|---|---|---|---|---|\n");
  Correlation sum_cross, sum_own, sum_random;
  int counted = 0;
  for (size_t held = 0; held < workloads.size(); ++held) {
    const TaskRecords& target = records[held];
    if (target.configs.size() < few + 2) continue;
    const ConfigSpace space = kernel->Space(workloads[held], kLimits);
    std::vector<TaskRecords> others;
    for (size_t i = 0; i < records.size(); ++i)
      if (i != held) others.push_back(records[i]);
    CrossTaskModel cross(space, 1);
    if (!cross.Fit(others)) continue;
    Correlation c, o, r;
    for (int draw = 0; draw < kDraws; ++draw) {
      Rng rng(static_cast<uint64_t>(draw) + 1);
      std::vector<size_t> rows(target.configs.size());
      for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
      rng.Shuffle(rows);
      const TaskRecords train = Subset(target, {rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(few)});
      const TaskRecords test = Subset(target, {rows.begin() + static_cast<std::ptrdiff_t>(few), rows.end()});
      CrossTaskModel own(space, 1);
      const Correlation cd = Rank(cross.Score(test.workload_features, test.configs), test.gflops);
      const Correlation od =
          own.Fit({train}) ? Rank(own.Score(test.workload_features, test.configs), test.gflops) : Correlation{};
      std::vector<float> noise;
      for (size_t i = 0; i < test.configs.size(); ++i) noise.push_back(static_cast<float>(rng.Uniform()));
      const Correlation rd = Rank(noise, test.gflops);
      c.rho += cd.rho / kDraws, c.tau += cd.tau / kDraws;
      o.rho += od.rho / kDraws, o.tau += od.tau / kDraws;
      r.rho += rd.rho / kDraws, r.tau += rd.tau / kDraws;
    }
    fmt::print("| {} | {} | {:.2f} / {:.2f} | {:.2f} / {:.2f} | {:.2f} / {:.2f} |\n", workloads[held].Key(),
               target.configs.size(), c.rho, c.tau, o.rho, o.tau, r.rho, r.tau);
    sum_cross.rho += c.rho, sum_cross.tau += c.tau, sum_own.rho += o.rho, sum_own.tau += o.tau;
    sum_random.rho += r.rho, sum_random.tau += r.tau;
    ++counted;
  }
  if (counted > 0)
    fmt::print("| mean of {} | | {:.2f} / {:.2f} | {:.2f} / {:.2f} | {:.2f} / {:.2f} |\n", counted,
               sum_cross.rho / counted, sum_cross.tau / counted, sum_own.rho / counted, sum_own.tau / counted,
               sum_random.rho / counted, sum_random.tau / counted);
  return 0;
}
