// Live progress of tune and tune-network: a redrawn line on a terminal, plain lines otherwise,
// JSON lines on request.
#include "cli/progress.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.h"
#include "run_program.h"

namespace tt {
namespace {

using testing::RunProgram;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;

// A clock the test moves: each update comes 30 seconds after the last.
struct FakeClock {
  double now = 100;
  Progress::Clock Get() {
    return [this] { return now; };
  }
};

TEST(Progress, TerminalRedrawsOneLineWithRateTimeLeftBestAndFailures) {
  std::ostringstream out;
  FakeClock clock;
  Progress progress(out, 100, ProgressMode::kBar, clock.Get());
  clock.now += 30;
  progress.Update({.done = 10, .failed = 1, .best_gflops = 12.5});
  clock.now += 30;
  progress.Update({.done = 20, .failed = 2, .best_gflops = 20.25});
  const std::string drawn = out.str();
  EXPECT_EQ(drawn.find('\n'), std::string::npos) << drawn;  // redrawn, never a new line
  EXPECT_EQ(drawn.rfind("\r\033[K", 0), 0u) << drawn;
  // 10 trials in the 30 s between the updates: 20/min, 80 left: 4 minutes.
  const std::string last = drawn.substr(drawn.rfind('\r'));
  EXPECT_NE(last.find("[####                ] trials 20/100  20.0/min  ~4m00s left  best 20.25 GFLOPS  failed 2"),
            std::string::npos)
      << last;
  progress.Finish();
  EXPECT_EQ(out.str().back(), '\n');
}

TEST(Progress, NotATerminalWritesOnePlainLinePerBatch) {
  std::ostringstream out;
  FakeClock clock;
  Progress progress(out, 8, ProgressMode::kPlain, clock.Get());
  clock.now += 60;
  progress.Update({.done = 4, .failed = 0, .best_gflops = 0.0});
  clock.now += 60;
  progress.Update({.done = 8, .latency_s = 0.0125});
  progress.Finish();
  EXPECT_EQ(out.str(),
            "trials 4/8  4.0/min  ~1m00s left  best none yet  failed 0\n"
            "trials 8/8  4.0/min  latency 12.500 ms\n");
  EXPECT_EQ(out.str().find('\r'), std::string::npos);
}

TEST(Progress, JsonWritesOneObjectPerBatch) {
  std::ostringstream out;
  FakeClock clock;
  Progress progress(out, 50, ProgressMode::kJson, clock.Get());
  clock.now += 10;
  progress.Update({.done = 5, .failed = 1, .best_gflops = 3.5});
  clock.now += 10;
  progress.Update({.done = 10, .latency_s = 0.002, .detail = "not in JSON"});
  std::istringstream lines(out.str());
  std::string line;
  std::vector<nlohmann::json> events;
  while (std::getline(lines, line)) events.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["event"], "progress");
  EXPECT_EQ(events[0]["trials"], 5);
  EXPECT_EQ(events[0]["total"], 50);
  EXPECT_EQ(events[0]["failed"], 1);
  EXPECT_DOUBLE_EQ(events[0]["best_gflops"].get<double>(), 3.5);
  EXPECT_DOUBLE_EQ(events[1]["trials_per_min"].get<double>(), 30);
  EXPECT_DOUBLE_EQ(events[1]["eta_s"].get<double>(), 80);
  EXPECT_DOUBLE_EQ(events[1]["latency_s"].get<double>(), 0.002);
  EXPECT_FALSE(events[1].contains("failed"));
}

TEST(Progress, ModesResolveByTerminalAndRefuseUnknownNames) {
  EXPECT_EQ(ResolveProgressMode(ProgressMode::kAuto, true, false), ProgressMode::kBar);
  EXPECT_EQ(ResolveProgressMode(ProgressMode::kAuto, false, false), ProgressMode::kPlain);
  EXPECT_EQ(ResolveProgressMode(ProgressMode::kAuto, true, true), ProgressMode::kNone);
  EXPECT_EQ(ResolveProgressMode(ProgressMode::kJson, false, true), ProgressMode::kJson);
  EXPECT_EQ(ParseProgressMode("json"), ProgressMode::kJson);
  EXPECT_THROW(ParseProgressMode("fancy"), UserError);
}

// The real program: under a pseudo-terminal (script(1)) one redrawn line, through a pipe plain
// lines, and --progress=json one parsable object per batch.
TEST(TuneProgress, TerminalGetsARedrawnLineAndAPipePlainLines) {
  ScratchDir dir;
  const std::string tune = kProgram + " tune --op gemm --shape 16,16,16 --trials 6 --batch-size 2 --tuner random " +
                           "--min-time 0.002 --db " + (dir.path() / "h.db").string();
  const auto tty = RunProgram("script -qec '" + tune + "' /dev/null", dir.path());
  ASSERT_EQ(tty.exit_code, 0) << tty.out << tty.err;
  EXPECT_NE(tty.out.find("\r\033[K["), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("trials 6/6"), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("/min"), std::string::npos) << tty.out;

  const auto piped = RunProgram(tune, dir.path());
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out.find('\r'), std::string::npos) << piped.out;
  EXPECT_NE(piped.out.find("trials 2/6"), std::string::npos) << piped.out;
  EXPECT_NE(piped.out.find("\ntrials 4/6"), std::string::npos) << piped.out;

  const auto json = RunProgram(tune + " --progress json", dir.path());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  std::istringstream lines(json.out);
  std::string line;
  int events = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("{", 0) != 0) continue;  // the summary and any warm-start line
    const auto event = nlohmann::json::parse(line);
    EXPECT_EQ(event["total"], 6);
    ++events;
  }
  EXPECT_EQ(events, 3) << json.out;

  const auto bad = RunProgram(tune + " --progress fancy", dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--progress fancy"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace tt
