#pragma once
// How well a cost model orders configs: rank correlations between its scores and the measured
// throughputs. Both are in [-1, 1]: 1 the same order, 0 no relation (random scores, on
// average), -1 the reverse order. Ties get average ranks (Spearman) or count as neither
// concordant nor discordant (Kendall's tau-b). Fewer than two values, or a side that is all
// ties: 0.
#include <vector>

namespace tt {

double SpearmanRho(const std::vector<double>& a, const std::vector<double>& b);
double KendallTau(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace tt
