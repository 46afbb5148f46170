// Fault suite, kernels: with every tuner, a configuration whose kernel crashes, hangs,
// computes the wrong answer or does not compile costs exactly one trial, and tuning goes on.
// The selftest operator has one configuration per behaviour (ops/selftest_template.h).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run_program.h"
#include "tuners/tuner_factory.h"

namespace tt {
namespace {

using testing::RunProgram;
using testing::ScratchDir;

TEST(FaultyKernels, EachCostsOneTrialWithEveryTuner) {
  const nlohmann::json one_each = {
      {"ok", 1}, {"runtime_error", 1}, {"timeout", 1}, {"wrong_answer", 1}, {"compile_error", 1}};
  for (const auto& tuner : TunerNames()) {
    SCOPED_TRACE(tuner);
    ScratchDir dir;
    const std::string tune = "TENSORTUNE_DIAGNOSTICS=1 " + std::string(TENSORTUNE_BIN) +
                             " tune --op selftest --shape 64 --trials 5 --timeout 1 --min-time 0.01 --json --tuner " +
                             tuner + " --db " + (dir.path() / "h.db").string();
    const auto r = RunProgram(tune, dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const auto summary = nlohmann::json::parse(r.out);
    EXPECT_EQ(summary["trials"], 5);
    EXPECT_EQ(summary["statuses"], one_each);
  }
}

}  // namespace
}  // namespace tt
