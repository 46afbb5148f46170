#pragma once
// The history records most worth starting a new workload from (history-based auto-tuning,
// section III-B): the fastest trials of every recorded workload of the same operator and
// template (any version with the same knobs), ranked by the filtering metric m(h, i).
#include <cstdint>
#include <string>
#include <vector>

#include "history/trial_history.h"
#include "space/match_score.h"

namespace tt {

struct RankedRecord {
  Workload workload;  // where it was recorded
  std::string config_key;
  KnobValues values;
  double gflops = 0;
  double match_score = 0;  // s(h, i) of its workload
  double utilisation = 0;  // gamma(h, i)
  double metric = 0;       // m(h, i)
};

struct CandidateOptions {
  int64_t per_workload = 64;  // fastest ok trials read per recorded workload
  size_t limit = 512;         // records kept, best metric first
  double omega = 2;
};

struct CandidateSearch {
  std::vector<RankedRecord> records;  // best metric first
  Workload best_match;                // the recorded workload with the highest match score
  double best_match_score = 0;        // 0 when nothing was recorded
  int64_t workloads = 0;              // recorded workloads considered
  int64_t records_read = 0;           // the search reads only workloads that can make the top
};

// `target_extents`: what the new workload's space offers (TargetExtentsOf it); no extents for
// a template without split knobs, whose match scores then compare the workloads' dimensions.
CandidateSearch FindCandidates(const TrialHistory& history, const HistoryScope& scope, const Workload& target,
                               const TargetExtents& target_extents, const CandidateOptions& options = {});

}  // namespace tt
