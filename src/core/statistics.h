#pragma once
// Order statistics, in one place: the median of a config's timed repeats, of a task's builds, of
// a network's runs, and the quartiles of `compare` all mean the same thing.
#include <vector>

namespace tt {

// The q-quantile (q in [0, 1]) of `values`, interpolated linearly between the two nearest ranks
// (an even count's median is the mean of the middle two). An infinite value at the upper rank is
// the answer, not a NaN. 0 for no values.
double Quantile(std::vector<double> values, double q);
double Median(std::vector<double> values);

}  // namespace tt
