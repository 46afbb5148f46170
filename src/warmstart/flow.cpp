#include "warmstart/flow.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "core/errors.h"
#include "space/config_adapt.h"
#include "tuners/tuner_factory.h"

namespace tt {
namespace {

// Adapted, valid and distinct, in metric order.
std::vector<WarmStartCandidate> Adapted(const ConfigSpace& space, const std::vector<RankedRecord>& records) {
  std::vector<WarmStartCandidate> candidates;
  for (const RankedRecord& r : records) {
    const auto adapted = AdaptConfig(space, r.values);
    if (!adapted || adapted->why_invalid) continue;
    const bool repeated = std::any_of(candidates.begin(), candidates.end(),
                                      [&](const WarmStartCandidate& c) { return c.config == adapted->config; });
    if (!repeated) candidates.push_back({adapted->config, r.metric});
  }
  return candidates;
}

std::vector<TransferSample> TransferSamples(const std::vector<RankedRecord>& records) {
  std::vector<TransferSample> samples;
  for (const RankedRecord& r : records)
    samples.push_back({r.values, WorkloadFeatures(r.workload), r.gflops, r.match_score});
  return samples;
}

std::string Describe(const CandidateSearch& search) {
  if (search.workloads == 0) return "no recorded workload of this operator and template";
  if (search.best_match_score <= 0)
    return fmt::format("no match (score 0) among {} recorded workloads, {} records read", search.workloads,
                       search.records_read);
  return fmt::format("best match {} (score {:.2f}) among {} recorded workloads, {} records read",
                     search.best_match.Key(), search.best_match_score, search.workloads, search.records_read);
}

}  // namespace

const OptionTable<FlowOptions>& FlowOptions::Table() {
  static const OptionTable<FlowOptions> table{
      {"threshold", &FlowOptions::threshold, "match score from which gga is taken, else xgb-tl", kProbability},
      {"omega", &FlowOptions::omega, "exponent of the match score in the filtering metric", kNonNegative},
      {"any_device", &FlowOptions::any_device, "history of other devices counts too"},
      {"filter", &FlowOptions::filter, "0: xgb-tl trains on every ok record of the history, unfiltered"},
  };
  return table;
}

FlowOptions FlowOptions::Parse(const TunerOptionMap& options) {
  TunerOptionMap own;
  std::map<std::string, TunerOptionMap> passed_on;
  for (const auto& [key, value] : options) {
    const size_t dot = key.find('.');
    if (dot == std::string::npos) {
      own[key] = value;
      continue;
    }
    const std::string tuner = key.substr(0, dot);
    if (std::find(std::begin(kFlowTuners), std::end(kFlowTuners), tuner) == std::end(kFlowTuners))
      throw UserError("auto option '" + key + "': only gga.KEY and xgb-tl.KEY options are passed on");
    passed_on[tuner][key.substr(dot + 1)] = value;
  }
  FlowOptions parsed = ParseOptionTable("auto", Table(), own);
  parsed.flow_tuner_options = std::move(passed_on);
  return parsed;
}

std::vector<Observation> TaskHistory(const TrialHistory& store, const TaskIds& task, const ConfigSpace& space,
                                     bool retry_transient) {
  std::vector<Observation> observations;
  for (const MeasuredConfig& m : store.MeasuredConfigs(task, retry_transient))
    if (auto config = space.FromKey(m.config_key))
      observations.push_back({*config, m.status, m.status == MeasureStatus::kOk ? m.gflops : 0});
  return observations;
}

std::vector<float> WorkloadFeatures(const Workload& workload) {
  std::vector<float> features;
  for (const auto& [name, value] : workload.dims)
    features.push_back(static_cast<float>(std::log2(std::max<int64_t>(value, 1))));
  return features;
}

std::string SimilarWorkloadsStart::Describe() const {
  return fmt::format("{} records of {} other workload{} of this run or earlier (best match {}, score {:.2f})", records,
                     workloads, workloads == 1 ? "" : "s", best_match.Key(), best_match_score);
}

SimilarWorkloadsStart SimilarWorkloadsWarmStart(const TrialHistory& history, const FlowTask& task,
                                                size_t max_workloads) {
  const auto& t = task.kernel_template;
  const HistoryScope scope{history.TemplateVersions(t.name, t.knob_schema, t.source_hash), task.ids.device};
  const CandidateSearch search = FindCandidates(history, scope, task.workload, TargetExtentsOf(*task.space));
  // The best-matching other workloads, each as one source of at least two ok records.
  std::map<std::string, std::vector<const RankedRecord*>> by_workload;
  std::map<std::string, double> score;
  for (const RankedRecord& r : search.records) {
    if (r.workload == task.workload) continue;  // the task's own records seed it instead
    by_workload[r.workload.Key()].push_back(&r);
    score[r.workload.Key()] = r.match_score;
  }
  std::vector<std::string> keys;
  for (const auto& [key, records] : by_workload)
    if (std::count_if(records.begin(), records.end(), [](const RankedRecord* r) { return r->gflops > 0; }) >= 2)
      keys.push_back(key);
  std::stable_sort(keys.begin(), keys.end(), [&](const auto& a, const auto& b) { return score[a] > score[b]; });
  if (keys.size() > max_workloads) keys.resize(max_workloads);

  SimilarWorkloadsStart start;
  start.warm_start.workload_features = WorkloadFeatures(task.workload);
  std::vector<RankedRecord> kept;
  for (size_t source = 0; source < keys.size(); ++source)
    for (const RankedRecord* r : by_workload[keys[source]]) {
      start.warm_start.transfer.push_back(
          {r->values, WorkloadFeatures(r->workload), r->gflops, r->match_score, static_cast<int>(source)});
      kept.push_back(*r);
    }
  std::stable_sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.metric > b.metric; });
  start.warm_start.candidates = Adapted(*task.space, kept);
  start.workloads = static_cast<int>(keys.size());
  start.records = start.warm_start.transfer.size();
  if (!keys.empty()) {
    start.best_match = by_workload[keys.front()].front()->workload;
    start.best_match_score = score[keys.front()];
  }
  return start;
}

FlowChoice ChooseFlow(const TrialHistory& store, const FlowTask& task, uint64_t seed, const FlowOptions& options) {
  const auto& t = task.kernel_template;
  const HistoryScope scope{store.TemplateVersions(t.name, t.knob_schema, t.source_hash),
                           options.any_device ? 0 : task.ids.device};
  constexpr size_t kEvery = size_t{1} << 30;  // filter=0: every record, kept at every fit
  CandidateOptions candidates;
  candidates.omega = options.omega;
  if (!options.filter) {
    candidates.per_workload = static_cast<int64_t>(kEvery);
    candidates.limit = kEvery;
  }
  const CandidateSearch search = FindCandidates(store, scope, task.workload, TargetExtentsOf(*task.space), candidates);
  const std::vector<Observation> exact = TaskHistory(store, task.ids, *task.space, task.retry_transient);

  FlowChoice choice;
  WarmStart warm_start;
  warm_start.workload_features = WorkloadFeatures(task.workload);
  if (!exact.empty() || search.best_match_score >= options.threshold) {
    choice.flow = exact.empty() ? "gga" : "exact";
    choice.tuner = "gga";
    warm_start.candidates = Adapted(*task.space, search.records);
    choice.primed = warm_start.candidates.size();
  } else {
    choice.flow = choice.tuner = "xgb-tl";
    warm_start.transfer = TransferSamples(search.records);
    choice.primed = warm_start.transfer.size();
  }
  TunerOptionMap tuner_options;
  if (const auto passed = options.flow_tuner_options.find(choice.tuner); passed != options.flow_tuner_options.end())
    tuner_options = passed->second;
  if (choice.tuner == "xgb-tl" && !options.filter) tuner_options["transfer_keep"] = std::to_string(kEvery);
  choice.made = MakeTuner(choice.tuner, *task.space, seed, tuner_options);
  choice.made->Seed(exact);
  choice.made->Prime(warm_start);
  choice.seeded = exact.size();

  if (choice.flow == "exact")
    choice.explanation = fmt::format(
        "auto: exact history ({} trials of this task, never measured again); gga goes on "
        "from them and {} adapted records; {}",
        exact.size(), choice.primed, Describe(search));
  else if (choice.flow == "gga")
    choice.explanation =
        fmt::format("auto: gga flow: {} >= threshold {:.2f}; first population from the best of {} adapted records",
                    Describe(search), options.threshold, choice.primed);
  else
    choice.explanation =
        fmt::format("auto: xgb-tl flow: {} below threshold {:.2f}; model pre-trained on {} records, {}",
                    Describe(search), options.threshold, choice.primed,
                    options.filter ? "filtered by feature importance and match score at every fit"
                                   : "all of them at every fit (filter=0)");
  return choice;
}

}  // namespace tt
