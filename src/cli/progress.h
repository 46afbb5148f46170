#pragma once
// Progress of a tuning run: a redrawn bar on a terminal, one plain line per batch otherwise.
#include <cstdint>
#include <iosfwd>

namespace tt {

class Progress {
 public:
  Progress(std::ostream& out, int64_t total, bool terminal, bool quiet);
  void Update(int64_t done, int64_t failed, double best_gflops);
  void Finish();

 private:
  std::ostream& out_;
  int64_t total_;
  bool terminal_, quiet_, drawn_ = false;
};

}  // namespace tt
