#include "runtime/layout_plan.h"

#include <limits>
#include <stdexcept>

namespace tt {

std::vector<size_t> PlanLayouts(const std::vector<ChainLayer>& chain, const ConversionSeconds& conversion) {
  if (chain.empty()) return {};
  // cost[i][c]: the least time of layers 0..i with layer i on candidate c; from[i][c]: layer
  // i-1's candidate on that plan.
  std::vector<std::vector<double>> cost(chain.size());
  std::vector<std::vector<size_t>> from(chain.size());
  for (size_t i = 0; i < chain.size(); ++i) {
    const auto& candidates = chain[i].candidates;
    if (candidates.empty()) throw std::invalid_argument("a layer without candidates");
    cost[i].assign(candidates.size(), std::numeric_limits<double>::infinity());
    from[i].assign(candidates.size(), 0);
    for (size_t c = 0; c < candidates.size(); ++c) {
      if (i == 0) {
        cost[i][c] = candidates[c].seconds;
        continue;
      }
      for (size_t p = 0; p < chain[i - 1].candidates.size(); ++p) {
        const auto& before = chain[i - 1].candidates[p];
        const double link = chain[i].reads_previous && before.output != candidates[c].input
                                ? conversion(i, before.output, candidates[c].input)
                                : 0.0;
        const double total = cost[i - 1][p] + link + candidates[c].seconds;
        if (total < cost[i][c]) {
          cost[i][c] = total;
          from[i][c] = p;
        }
      }
    }
  }
  std::vector<size_t> plan(chain.size());
  size_t last = 0;
  for (size_t c = 1; c < cost.back().size(); ++c)
    if (cost.back()[c] < cost.back()[last]) last = c;
  for (size_t i = chain.size(); i-- > 0;) {
    plan[i] = last;
    last = from[i][last];
  }
  return plan;
}

}  // namespace tt
