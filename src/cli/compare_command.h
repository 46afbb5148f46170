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
  std::vector<std::string> shape_flags;  // 0/1 workload dimensions switched on, e.g. transpose_a
  std::vector<std::string> pins;         // "knob=value": knobs held at one value
  std::string kernel_template;           // empty: the operator's first applicable template
  std::string space;                     // an imported user-defined kernel (Kernel Tuner), instead of op and shape
  std::string db;
  std::string device;  // index among the recorded devices or a name fragment; empty: the only one
  std::vector<std::string> tuners{"opevo", "ga", "xgb", "random"};
  int64_t seeds = 20;
  int64_t trials = 300;
  int64_t batch_size = 8;
  // Non-empty: every replayed run is appended to this file as one JSON line (kernel or
  // workload, device, tuner, seed, best so far as a fraction of the best recorded after each
  // trial), for bench/search_results.py.
  std::string runs_out;
  // Non-empty: each tuner also runs warm-started from the records of the same task on these
  // devices (name fragments or indices, as --device takes them; "auto": the most similar
  // ones), a row "<tuner> warm" beside its cold row.
  std::vector<std::string> warm_from;
};

int RunCompare(const CompareOptions& options, std::ostream& out);

}  // namespace tt
