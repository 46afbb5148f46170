#pragma once
// `tensortune compare`: tuners replayed many times on a recorded space, side by side.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace tt {

struct CompareOptions {
  std::string op;
  std::string shape;
  std::string kernel_template;  // empty: the operator's first template
  std::string db;
  std::string device;  // index among the recorded devices or a name fragment; empty: the only one
  std::vector<std::string> tuners{"opevo", "ga", "xgb", "random"};
  int64_t seeds = 20;
  int64_t trials = 300;
  int64_t batch_size = 8;
};

int RunCompare(const CompareOptions& options, std::ostream& out);

}  // namespace tt
