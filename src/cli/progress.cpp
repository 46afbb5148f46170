#include "cli/progress.h"

#include <fmt/format.h>

#include <ostream>
#include <string>

namespace tt {

Progress::Progress(std::ostream& out, int64_t total, bool terminal, bool quiet)
    : out_(out), total_(total), terminal_(terminal), quiet_(quiet) {}

void Progress::Update(int64_t done, int64_t failed, double best_gflops) {
  if (quiet_) return;
  const std::string best = best_gflops > 0 ? fmt::format("{:.2f} GFLOPS", best_gflops) : "none yet";
  if (!terminal_) {
    out_ << fmt::format("trials {}/{}  failed {}  best {}\n", done, total_, failed, best) << std::flush;
    return;
  }
  constexpr int kWidth = 30;
  const int filled = total_ > 0 ? static_cast<int>(kWidth * done / total_) : kWidth;
  out_ << fmt::format("\r[{}{}] {}/{}  failed {}  best {}   ", std::string(filled, '#'),
                      std::string(kWidth - filled, ' '), done, total_, failed, best)
       << std::flush;
  drawn_ = true;
}

void Progress::Finish() {
  if (drawn_) out_ << "\n";
  drawn_ = false;
}

}  // namespace tt
