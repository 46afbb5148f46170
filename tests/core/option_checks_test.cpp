#include "core/option_checks.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>

#include "core/errors.h"

namespace tt {
namespace {

std::string Refusal(const std::function<void()>& check) {
  try {
    check();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(OptionChecks, CountsFromOneToTheirLimit) {
  EXPECT_EQ(Refusal([] { CheckCount("--trials", 1, kMaxTrials); }), "");
  EXPECT_EQ(Refusal([] { CheckCount("--trials", kMaxTrials, kMaxTrials); }), "");
  EXPECT_EQ(Refusal([] { CheckCount("--trials", 0, kMaxTrials); }),
            "--trials must be a whole number from 1 to 1000000");
  EXPECT_NE(Refusal([] { CheckCount("--batch-size", kMaxBatchSize + 1, kMaxBatchSize); }), "");
}

TEST(OptionChecks, SecondsAreFiniteAndInRange) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Refusal([] { CheckSeconds("--time-limit", 0, true, kMaxTimeLimitSeconds); }), "");
  EXPECT_NE(Refusal([] { CheckSeconds("--timeout", 0, false, kMaxTimeoutSeconds); }), "");
  for (const double bad : {nan, inf, -1.0, kMaxTimeoutSeconds * 2})
    EXPECT_NE(Refusal([&] { CheckSeconds("--timeout", bad, false, kMaxTimeoutSeconds); }), "") << bad;
  EXPECT_EQ(Refusal([] { CheckMeasuringTimes(10, 0.1); }), "");
  EXPECT_EQ(Refusal([] { CheckMeasuringTimes(1, 1); }), "--min-time must be shorter than --timeout");
}

TEST(OptionChecks, SharesAreFromZeroToOne) {
  for (const double good : {0.0, 0.25, 1.0}) EXPECT_EQ(Refusal([&] { CheckShare("--retime-share", good); }), "");
  for (const double bad : {-0.1, 1.5, std::numeric_limits<double>::quiet_NaN()})
    EXPECT_EQ(Refusal([&] { CheckShare("--retime-share", bad); }), "--retime-share must be a number from 0 to 1")
        << bad;
}

}  // namespace
}  // namespace tt
