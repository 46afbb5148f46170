#pragma once
// Order statistics, in one place: the median of a config's timed repeats, of a task's builds, of
// a network's runs, and the quartiles of `compare` all mean the same thing.
#include <cstddef>
#include <functional>
#include <vector>

namespace tt {

// The q-quantile (q in [0, 1]) of `values`, interpolated linearly between the two nearest ranks
// (an even count's median is the mean of the middle two). An infinite value at the upper rank is
// the answer, not a NaN. 0 for no values.
double Quantile(std::vector<double> values, double q);
double Median(std::vector<double> values);

// Times `items` things that are to be compared with each other on a shared machine: `rounds`
// rounds, each timing every item once in turn (`time_once(i)`), and per item the least of its
// rounds. A burst of load during one item's turn then costs it that round only, and a slow
// stretch of the machine is spread over every item instead of deciding between them.
std::vector<double> LeastOverInterleavedRounds(size_t items, int rounds,
                                               const std::function<double(size_t)>& time_once);

}  // namespace tt
