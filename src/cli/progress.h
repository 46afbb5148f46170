#pragma once
// Progress of a tuning run: a redrawn bar on a terminal, one plain line per batch otherwise.
#include <cstdint>
#include <iosfwd>
#include <string>

namespace tt {

class Progress {
 public:
  Progress(std::ostream& out, int64_t total, bool terminal, bool quiet);
  void Update(int64_t done, int64_t failed, double best_gflops);
  void Update(int64_t done, const std::string& detail);  // detail: what follows "trials done/total"
  void Finish();

 private:
  std::ostream& out_;
  int64_t total_;
  bool terminal_, quiet_, drawn_ = false;
};

}  // namespace tt
