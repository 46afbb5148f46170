#pragma once
// `tensortune best`: the best verified configuration of a workload from the history, as JSON
// with the template's -D build options; a fallback adapted from the most similar recorded
// workload when this one was never tuned.
#include <iosfwd>
#include <string>
#include <vector>

namespace tt {

struct BestOptions {
  std::string op;
  std::string shape;
  std::vector<std::string> shape_flags;
  std::vector<std::string> pins;  // not meaningful here: refused
  std::string kernel_template;
  std::string db;
  std::string device;
};

// 0 with the JSON on `out`; 1 with a message on `err` when the history has nothing usable.
// Throws UserError for bad input (a database that does not exist is never created).
int RunBest(const BestOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tt
