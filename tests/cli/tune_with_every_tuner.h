#pragma once
// Tunes one sketch end to end with each named tuner, each on its own fresh database, through
// the real program: every run must finish with all its trials measured ok.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/run_program.h"

namespace tt::testing {

// `problem`: the --op and --shape arguments.
inline void ExpectTunesWithEveryTuner(const std::string& sketch, const std::string& problem,
                                      const std::vector<std::string>& tuners) {
  ScratchDir dir;
  for (const auto& tuner : tuners) {
    const auto db = dir.path() / (sketch + "-" + tuner + ".db");
    const auto r =
        RunProgram(std::string(TENSORTUNE_BIN) + " tune " + problem + " --template " + sketch +
                       " --trials 3 --batch-size 3 --min-time 0.001 --json --tuner " + tuner + " --db " + db.string(),
                   dir.path());
    ASSERT_EQ(r.exit_code, 0) << sketch << " " << tuner << ": " << r.err;
    const auto summary = nlohmann::json::parse(r.out);
    EXPECT_EQ(summary["trials"], 3) << sketch << " " << tuner;
    EXPECT_EQ(summary["statuses"].value("ok", 0), 3) << sketch << " " << tuner << ": " << r.out;
  }
}

}  // namespace tt::testing
