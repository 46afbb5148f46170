#pragma once
// Progress of a tuning run, once per batch: one line redrawn in place on a terminal, one plain
// line per batch otherwise, or one JSON object per line for scripts (--progress=json).
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

namespace tt {

enum class ProgressMode { kAuto, kBar, kPlain, kJson, kNone };

// "auto", "bar", "plain", "json" or "none"; UserError naming the choices otherwise.
ProgressMode ParseProgressMode(const std::string& text);
// What kAuto means here: a redrawn bar on a terminal, plain lines otherwise, nothing when the
// command prints a JSON summary (`--json`). An explicit choice stays.
ProgressMode ResolveProgressMode(ProgressMode requested, bool terminal, bool json_summary);

struct ProgressState {
  int64_t done = 0;
  std::optional<int64_t> failed = std::nullopt;
  std::optional<double> best_gflops = std::nullopt;  // tune: the best so far
  std::optional<double> latency_s = std::nullopt;    // tune-network: the estimated latency (text: when no detail)
  std::string detail = {};                           // written after the rest (plain and bar)
};

class Progress {
 public:
  using Clock = std::function<double()>;  // seconds, increasing; a steady clock by default
  Progress(std::ostream& out, int64_t total, ProgressMode mode, Clock clock = {});
  void Update(const ProgressState& state);
  void Finish();  // ends a redrawn line

 private:
  std::ostream& out_;
  int64_t total_;
  ProgressMode mode_;
  Clock clock_;
  double started_ = 0;
  std::optional<std::pair<double, int64_t>> first_;  // the first update: when, trials done
  bool drawn_ = false;
};

}  // namespace tt
