#pragma once
// How well a config recorded for one workload suits another workload of the same template
// (history-based auto-tuning, eq. 1-3): the match score s(h, i) of their split extents, the
// utilisation gamma(h, i) of the recorded tiles on the new extents, and the filtering metric
// m(h, i) = Th(h) * gamma(h, i) * s(h, i)^omega.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/workload.h"
#include "space/config_adapt.h"
#include "space/config_space.h"

namespace tt {

// The extent of each split knob, by name, in knob order.
using SplitExtents = std::vector<std::pair<std::string, int64_t>>;

SplitExtents SplitExtentsOf(const ConfigSpace& space);

// What a new workload's space offers recorded configs: each split knob's extent, and the
// larger extents it may also factor with a partial last tile (Knob::SplitWithTail), several per
// knob possibly. A recorded split of such an extent is a value of the knob as it is: 1024's
// tiles in the space of 1023 rounded up to 1024.
struct TargetExtents {
  SplitExtents exact;
  SplitExtents tails;
};
TargetExtents TargetExtentsOf(const ConfigSpace& space);
// From recorded values: each split's extent is the product of its factors.
SplitExtents SplitExtentsOf(const KnobValues& recorded);
// A workload's positive dimensions as extents: what the match score compares for templates
// whose knobs split no extent (tile counts and vector widths over the operator's loops), whose
// configs do not tell what they were measured on.
SplitExtents WorkloadExtents(const Workload& workload);

// Eq. 1: the mean over the new workload's split knobs of |factors(h) n factors(i)| /
// |factors(h)|. 1 for equal extents, 0 when no knob is shared; in [0, 1]. A knob whose
// recorded extent is one of its tail extents in `tails` scores 1: its tiles carry over whole.
double MatchScore(const SplitExtents& recorded, const SplitExtents& wanted, const SplitExtents& tails = {});
inline double MatchScore(const SplitExtents& recorded, const TargetExtents& target) {
  return MatchScore(recorded, target.exact, target.tails);
}

// The match score of a record of `recorded` (its config `values`) for `wanted`: eq. 1 over
// the split extents, or over the workloads' dimensions for a template without split knobs
// (`target` has no exact extents), and halved where the windows differ (SameWindow): the
// speed of another kind of loop nest (a 3x3 layer's GFLOPS dwarf a 1x1 projection's at any
// config) informs only where no workload with the same window does.
double RecordMatchScore(const Workload& recorded, const KnobValues& values, const Workload& wanted,
                        const TargetExtents& target);

// Eq. 3: the product over split knobs of the share of the work-group tile P(h, k) (the product
// of every factor but the outermost, which only counts tiles) that the new extent keeps busy:
// n / (ceil(n / P) * P) when n > P, else n / P.
double Utilisation(const KnobValues& recorded, const SplitExtents& wanted);

// Eq. 2.
double FilterMetric(double recorded_gflops, double utilisation, double match_score, double omega = 2);

}  // namespace tt
