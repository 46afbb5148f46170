#pragma once
// `--tuner auto`: which history flow a task takes (history-based auto-tuning, Fig. 1).
//  - exact history of this task: seeded (never measured again), and gga goes on from it;
//  - else a recorded workload of the same operator and template matching at least
//    `threshold`: gga, its first population the best-ranked records adapted to this space;
//  - else xgb-tl, its model pre-trained on history filtered by importance and similarity.
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "history/trial_history.h"
#include "ranking/candidates.h"
#include "tuners/tuner.h"
#include "tuners/tuner_options.h"

namespace tt {

struct FlowOptions {
  double threshold = 0.6;   // match score from which gga is taken
  double omega = 2;         // weight of the match score in the filtering metric
  bool any_device = false;  // history of other devices counts too
  // xgb-tl trains on the records filtered by the metric and by feature importance; false
  // trains on every ok record of every workload read (the paper's unfiltered baseline, Fig. 4).
  bool filter = true;
  // Options of the tuner a flow takes, given as "gga.pop_size=8" or "xgb-tl.plan_size=8".
  std::map<std::string, TunerOptionMap> flow_tuner_options;

  static const OptionTable<FlowOptions>& Table();           // its own options, without the passed-on ones
  static FlowOptions Parse(const TunerOptionMap& options);  // throws UserError
  static constexpr const char* kFlowTuners[] = {"gga", "xgb-tl"};
};

struct FlowTask {
  Workload workload;
  TemplateRef kernel_template;  // with its knob schema
  TaskIds ids;                  // the task's rows (EnsureTask)
  const ConfigSpace* space = nullptr;
  bool retry_transient = false;  // --retry-failed: configs whose only records are transient are measured again
};

struct FlowChoice {
  std::string flow;             // "exact", "gga" or "xgb-tl"
  std::string tuner;            // the tuner's name
  std::unique_ptr<Tuner> made;  // seeded and primed
  std::string explanation;      // one line: best match, its score, how many records
  size_t seeded = 0;            // trials of this task given to Seed
  size_t primed = 0;            // adapted candidates or transfer samples given to Prime
};

// Reads the history of `store`; the tuner is seeded and primed, ready for NextBatch.
FlowChoice ChooseFlow(const TrialHistory& store, const FlowTask& task, uint64_t seed, const FlowOptions& options = {});

// Other workloads' records of the task's template on the task's device (earlier runs, and the
// finished batches of this one), as a warm start for a tuner other than auto: the records of
// the `max_workloads` best-matching workloads with at least two ok records each, as transfer
// samples with one source per workload (bo models each source and weighs it by its match
// score), and the best of them adapted to this space as candidates.
struct SimilarWorkloadsStart {
  WarmStart warm_start;
  int workloads = 0;
  size_t records = 0;
  Workload best_match;
  double best_match_score = 0;
  std::string Describe() const;  // "12 records of 3 workloads of this run or earlier (best match ..., score 0.71)"
};
SimilarWorkloadsStart SimilarWorkloadsWarmStart(const TrialHistory& history, const FlowTask& task,
                                                size_t max_workloads = 4);

// The trials of one task as a tuner's Seed takes them (lean read: no logs, no repeat times);
// trials whose key does not fit `space` (e.g. other pins) are left out, and so are transient
// failures (all of them with `retry_transient`, else all but repeated timeouts: see
// TrialHistory::MeasuredConfigs), so that they are measured again.
std::vector<Observation> TaskHistory(const TrialHistory& store, const TaskIds& task, const ConfigSpace& space,
                                     bool retry_transient = false);

// log2 of each dimension (at least 1): workloads' features for transfer learning.
std::vector<float> WorkloadFeatures(const Workload& workload);

}  // namespace tt
