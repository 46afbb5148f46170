#include "cli/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "core/errors.h"

namespace tt {
namespace {

std::string Duration(double seconds) {
  const auto s = static_cast<int64_t>(std::llround(seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

}  // namespace

ProgressMode ParseProgressMode(const std::string& text) {
  if (text == "auto") return ProgressMode::kAuto;
  if (text == "bar") return ProgressMode::kBar;
  if (text == "plain") return ProgressMode::kPlain;
  if (text == "json") return ProgressMode::kJson;
  if (text == "none") return ProgressMode::kNone;
  throw UserError("--progress " + text + ": choose auto, bar, plain, json or none");
}

ProgressMode ResolveProgressMode(ProgressMode requested, bool terminal, bool json_summary) {
  if (requested != ProgressMode::kAuto) return requested;
  if (json_summary) return ProgressMode::kNone;
  return terminal ? ProgressMode::kBar : ProgressMode::kPlain;
}

Progress::Progress(std::ostream& out, int64_t total, ProgressMode mode, Clock clock)
    : out_(out), total_(total), mode_(mode), clock_(std::move(clock)) {
  if (!clock_)
    clock_ = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
  started_ = clock_();
}

void Progress::Update(const ProgressState& s) {
  if (mode_ == ProgressMode::kNone) return;
  const double now = clock_(), elapsed = std::max(0.0, now - started_);
  // The rate since the first update (a resumed run's earlier trials do not count), or since
  // the start while there is only one.
  if (!first_) first_ = {now, s.done};
  double per_s = 0;
  if (now > first_->first && s.done > first_->second)
    per_s = static_cast<double>(s.done - first_->second) / (now - first_->first);
  else if (elapsed > 0)
    per_s = static_cast<double>(s.done) / elapsed;
  const int64_t left = std::max<int64_t>(0, total_ - s.done);
  // Seconds left, or -1 while the rate is unknown (a plain double: GCC 12 misreads an optional here).
  const double eta = per_s > 0 ? static_cast<double>(left) / per_s : -1;

  if (mode_ == ProgressMode::kJson) {
    nlohmann::json j{{"event", "progress"},
                     {"trials", s.done},
                     {"total", total_},
                     {"elapsed_s", elapsed},
                     {"trials_per_min", per_s * 60},
                     {"eta_s", eta >= 0 ? nlohmann::json(eta) : nlohmann::json(nullptr)}};
    if (s.failed) j["failed"] = *s.failed;
    if (s.best_gflops) j["best_gflops"] = *s.best_gflops > 0 ? nlohmann::json(*s.best_gflops) : nlohmann::json(nullptr);
    if (s.latency_s) j["latency_s"] = *s.latency_s;
    out_ << j.dump() << "\n" << std::flush;
    return;
  }
  std::string line = fmt::format("trials {}/{}", s.done, total_);
  if (per_s > 0) line += fmt::format("  {:.1f}/min", per_s * 60);
  if (eta >= 0 && left > 0) line += fmt::format("  ~{} left", Duration(eta));
  if (s.latency_s && s.detail.empty()) line += fmt::format("  latency {:.3f} ms", *s.latency_s * 1e3);
  if (s.best_gflops)
    line += *s.best_gflops > 0 ? fmt::format("  best {:.2f} GFLOPS", *s.best_gflops) : "  best none yet";
  if (s.failed) line += fmt::format("  failed {}", *s.failed);
  if (!s.detail.empty()) line += "  " + s.detail;
  if (mode_ == ProgressMode::kPlain) {
    out_ << line << "\n" << std::flush;
    return;
  }
  constexpr int kWidth = 20;
  const int filled = total_ > 0 ? static_cast<int>(kWidth * std::min(s.done, total_) / total_) : kWidth;
  // \r and erase-to-end-of-line: one line, redrawn, whatever the previous one's length.
  out_ << fmt::format("\r\033[K[{}{}] {}", std::string(filled, '#'), std::string(kWidth - filled, ' '), line)
       << std::flush;
  drawn_ = true;
}

void Progress::Finish() {
  if (drawn_) out_ << "\n" << std::flush;
  drawn_ = false;
}

}  // namespace tt
