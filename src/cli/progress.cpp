#include "cli/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <string>

namespace tt {

Progress::Progress(std::ostream& out, int64_t total, bool terminal, bool quiet)
    : out_(out), total_(total), terminal_(terminal), quiet_(quiet) {}

void Progress::Update(int64_t done, int64_t failed, double best_gflops) {
  const std::string best = best_gflops > 0 ? fmt::format("{:.2f} GFLOPS", best_gflops) : "none yet";
  Update(done, fmt::format("failed {}  best {}", failed, best));
}

void Progress::Update(int64_t done, const std::string& detail) {
  if (quiet_) return;
  if (!terminal_) {
    out_ << fmt::format("trials {}/{}  {}\n", done, total_, detail) << std::flush;
    return;
  }
  constexpr int kWidth = 30;
  const int filled = total_ > 0 ? static_cast<int>(kWidth * std::min(done, total_) / total_) : kWidth;
  out_ << fmt::format("\r[{}{}] {}/{}  {}   ", std::string(filled, '#'), std::string(kWidth - filled, ' '), done,
                      total_, detail)
       << std::flush;
  drawn_ = true;
}

void Progress::Finish() {
  if (drawn_) out_ << "\n";
  drawn_ = false;
}

}  // namespace tt
