// Bad command lines: one clear line, exit 2, nothing written, and no waiting for a device
// or a search first (each is refused before a database is opened).
#include <gtest/gtest.h>

#include "run_program.h"

namespace tt {
namespace {

using testing::RunProgram;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;

struct Refusal {
  const char* name;
  std::string args;     // everything after the program, --db excepted
  const char* message;  // a fragment of the one-line error
};

class CommandLineRefuses : public ::testing::TestWithParam<Refusal> {};

TEST_P(CommandLineRefuses, WithOneLineExitTwoAndNoDatabase) {
  ScratchDir dir;
  const auto db = dir.path() / "h.db";
  const auto r = RunProgram(kProgram + " " + GetParam().args + " --db " + db.string(), dir.path());
  testing::ExpectRefusal(r, GetParam().message, db);
}

INSTANTIATE_TEST_SUITE_P(
    BadInputs, CommandLineRefuses,
    ::testing::Values(
        Refusal{"UnknownOperator", "tune --trials 2 --op convolution --shape 1,2,3", "unknown operator 'convolution'"},
        Refusal{"MalformedShape", "tune --trials 2 --op gemm --shape 64,x,64", "malformed shape '64,x,64'"},
        Refusal{"ShortShape", "tune --trials 2 --op gemm --shape 64,64", "malformed shape"},
        Refusal{"UnknownDeviceIndex", "tune --trials 2 --op gemm --shape 8,8,8 --device 42", "unknown device '42'"},
        Refusal{"UnknownDeviceName", "tune --trials 2 --op gemm --shape 8,8,8 --device nosuchgpu", "nosuchgpu"},
        Refusal{"UnknownTuner", "tune --trials 2 --op gemm --shape 8,8,8 --tuner simulated", "simulated"},
        Refusal{"UnknownTemplate", "tune --trials 2 --op gemm --shape 8,8,8 --template fast",
                "unknown template 'fast'"},
        Refusal{"MissingConvKey", "tune --trials 2 --op conv2d --shape n=1,ci=3,h=8,w=8,co=4,kh=3,kw=3,pad=1",
                "'stride' is missing"},
        Refusal{"UnknownConvKey",
                "tune --trials 2 --op conv2d --shape n=1,ci=3,h=8,w=8,co=4,kh=3,kw=3,stride=1,pad=1,g=2",
                "unknown key 'g'"},
        Refusal{"KernelLargerThanInput",
                "tune --trials 2 --op depthwise_conv2d --shape n=1,c=3,h=2,w=2,kh=5,kw=5,stride=1,pad=0",
                "larger than the padded input"},
        Refusal{"PinToAbsentValue", "tune --trials 2 --op gemm --shape 8,8,8 --pin vec=3", "knob vec has no value '3'"},
        Refusal{"SwitchForAnotherOperator", "tune --trials 2 --op gemm --shape 8,8,8 --transpose-a",
                "--transpose-a does not apply to gemm"},
        Refusal{"TunerOptionOutOfRange",
                "tune --trials 2 --op gemm --shape 8,8,8 --tuner ga --tuner-opt mutation_prob=1.5",
                "ga option mutation_prob must be in [0, 1], got 1.5"},
        Refusal{"AutoOptionOutOfRange", "tune --trials 2 --op gemm --shape 8,8,8 --tuner auto --tuner-opt threshold=2",
                "auto option threshold must be in [0, 1], got 2"},
        Refusal{"PassedOnOptionOutOfRange",
                "tune --trials 2 --op gemm --shape 8,8,8 --tuner auto --tuner-opt gga.pop_size=0",
                "gga option pop_size must be at least 1, got 0"},
        Refusal{"TunerOptionNotAChoice",
                "tune --trials 2 --op gemm --shape 8,8,8 --tuner xgb --tuner-opt objective=hinge",
                "is not rank or reg"},
        Refusal{"MisspeltTunerOption", "tune --trials 2 --op gemm --shape 8,8,8 --tuner opevo --tuner-opt lamda=3",
                "unknown tuner option 'lamda' for tuner 'opevo' (known: lambda, q, rho)"},
        Refusal{"SketchThatDoesNotFit",
                "tune --trials 2 --op conv2d --shape n=1,ci=8,h=8,w=8,co=8,kh=3,kw=3,stride=2,pad=1 --template "
                "conv2d_winograd",
                "needs a 3x3 kernel with stride 1"}),
    [](const auto& info) { return std::string(info.param.name); });

// Sizes whose products overflow 64 bits: these once spent minutes factorizing, then failed
// with exit 3 or 4 and a database holding a `running` run.
INSTANTIATE_TEST_SUITE_P(
    OverflowingShapes, CommandLineRefuses,
    ::testing::Values(
        Refusal{"Gemm", "tune --op gemm --shape 4294967296,4294967296,4294967296", "m is 4294967296"},
        Refusal{"BatchMatmul", "tune --op batch_matmul --shape 4294967296,65536,65536,65536", "b is 4294967296"},
        Refusal{"Conv2d", "tune --op conv2d --shape n=1,ci=3,h=3037000500,w=3037000500,co=4,kh=3,kw=3,stride=1,pad=1",
                "h is 3037000500"},
        // Each size fits and the output is small, but the input's n*ci*h*w is 2^64, which
        // wrapped around to 0 and reached the worker as an empty buffer (exit 3).
        Refusal{"Conv2dProductWrapsToZero",
                "tune --op conv2d --shape n=4,ci=1073741824,h=65536,w=65536,co=1,kh=1,kw=1,stride=65536,pad=0",
                "buffer data would have 2^31 elements or more"},
        // 4 * (2^31 - 1)^2 wraps around to a negative count.
        Refusal{
            "DepthwiseProductWrapsNegative",
            "sweep --op depthwise_conv2d --shape n=4,c=1,h=2147483647,w=2147483647,kh=1,kw=1,stride=2147483647,pad=0",
            "buffer data would have 2^31 elements or more"},
        Refusal{"GemmOutputTooLarge", "tune --op gemm --shape 65536,65536,1", "buffer C would have 2^31 elements"},
        Refusal{"HugeStride",
                "tune --op depthwise_conv2d --shape n=1,c=1,h=8,w=8,kh=1,kw=1,stride=9223372036854775807,pad=0",
                "stride is 9223372036854775807"}),
    [](const auto& info) { return std::string(info.param.name); });

// Numbers CLI11 converts without complaint: nan and inf as doubles, over-long integers clamped.
INSTANTIATE_TEST_SUITE_P(
    OutOfRangeNumbers, CommandLineRefuses,
    ::testing::Values(
        Refusal{"TimeoutNan", "tune --op gemm --shape 8,8,8 --timeout nan", "--timeout must be a number of seconds"},
        Refusal{"TimeoutInf", "tune --op gemm --shape 8,8,8 --timeout inf", "--timeout must be a number of seconds"},
        Refusal{"TimeoutHuge", "tune --op gemm --shape 8,8,8 --timeout 1e300", "--timeout must be a number of seconds"},
        Refusal{"MinTimeNan", "tune --op gemm --shape 8,8,8 --min-time nan", "--min-time must be a number of seconds"},
        Refusal{"MinTimeInf", "tune --op gemm --shape 8,8,8 --min-time inf", "--min-time must be a number of seconds"},
        Refusal{"MinTimeOutlastsTimeout", "tune --op gemm --shape 8,8,8 --min-time 5 --timeout 2",
                "--min-time must be shorter than --timeout"},
        Refusal{"TrialsHuge", "tune --op gemm --shape 8,8,8 --trials 99999999999999999999",
                "--trials must be a whole number"},
        Refusal{"TrialsNegativeHuge", "tune --op gemm --shape 8,8,8 --trials -99999999999999999999",
                "--trials must be a whole number"},
        Refusal{"BatchSizeHuge", "tune --op gemm --shape 8,8,8 --batch-size 99999999999999999999",
                "--batch-size must be a whole number"},
        Refusal{"SweepLimitHuge", "sweep --op gemm --shape 8,8,8 --limit 99999999999999999999",
                "--limit must be a whole number"},
        Refusal{"SweepLimitZero", "sweep --op gemm --shape 8,8,8 --limit 0", "--limit"},
        Refusal{"CompareSeedsHuge", "compare --op gemm --shape 8,8,8 --seeds 99999999999999999999",
                "--seeds must be a whole number"},
        Refusal{"CompareTrialsHuge", "compare --op gemm --shape 8,8,8 --trials 99999999999999999999",
                "--trials must be a whole number"},
        // These were saturated (or wrapped) to 2^64 - 1 and stored as -1.
        Refusal{"SeedHuge", "tune --op gemm --shape 8,8,8 --seed 99999999999999999999",
                "--seed: must be a whole number from 0 to 9223372036854775807"},
        Refusal{"SeedNegative", "tune --op gemm --shape 8,8,8 --seed -1", "--seed: must be a whole number"},
        Refusal{"SeedPastSigned", "tune --op gemm --shape 8,8,8 --seed 9223372036854775808", "--seed: must be"},
        Refusal{"SeedHex", "sweep --op gemm --shape 8,8,8 --seed 0x10", "--seed: must be"},
        Refusal{"NetworkSeedHuge", "tune-network alexnet --trials 2 --seed 18446744073709551616", "--seed: must be"},
        // Before: run-network saturated these and exited 0.
        Refusal{"RunNetworkSeedNegative", "run-network alexnet --pack nowhere --seed -1", "--seed: must be"},
        Refusal{"RunNetworkSeedHuge", "run-network alexnet --pack nowhere --seed 18446744073709551616",
                "--seed: must be"},
        Refusal{"RunNetworkSeedDigits", "run-network alexnet --pack nowhere --seed 12345678901234567890123",
                "--seed: must be"}),
    [](const auto& info) { return std::string(info.param.name); });

// User text with line breaks once made errors of several lines; ExpectRefusal counts one.
INSTANTIATE_TEST_SUITE_P(
    LineBreaksInUserText, CommandLineRefuses,
    ::testing::Values(
        Refusal{"Operator", "tune --op \"$(printf 'gemm\\nsecond line')\" --shape 8,8,8",
                "unknown operator 'gemm\\nsecond line'"},
        Refusal{"Shape", "tune --op gemm --shape \"$(printf '8,8\\r\\n,8')\"", "malformed shape '8,8\\r\\n,8'"},
        Refusal{"Network", "tune-network --trials 2 \"$(printf 'net\\nwork')\"", "no built-in network 'net\\nwork'"},
        Refusal{"Template", "tune --op gemm --shape 8,8,8 --template \"$(printf 'a\\tb\\001')\"",
                "unknown template 'a\\tb\\x01'"}),
    [](const auto& info) { return std::string(info.param.name); });

// Parse errors once exited with CLI11's codes (104 to 114) and a second "Run with --help" line.
INSTANTIATE_TEST_SUITE_P(
    ParseErrors, CommandLineRefuses,
    ::testing::Values(Refusal{"NotANumber", "tune --op gemm --shape 8,8,8 --trials abc", "--trials"},
                      Refusal{"MissingOperator", "tune --shape 8,8,8", "--op and --shape are required"},
                      Refusal{"UnknownOption", "tune --op gemm --shape 8,8,8 --frobnicate 3", "--frobnicate"},
                      Refusal{"RepeatedOption", "tune --op gemm --shape 8,8,8 --trials 2 --trials 3", "--trials"},
                      Refusal{"UnknownCommand", "frobnicate", "A subcommand is required"}),
    [](const auto& info) { return std::string(info.param.name); });

// Pins that are each a value of their knob but together leave no valid configuration once
// exited 0 with "every valid configuration has been measured".
INSTANTIATE_TEST_SUITE_P(
    EmptyPinnedSpaces, CommandLineRefuses,
    ::testing::Values(Refusal{"Tune", "tune --op gemm --shape 8,8,8 --pin vec=8 --pin tile_y=[8,1,1,1]",
                              "the pinned space is empty"},
                      Refusal{"Sweep", "sweep --op gemm --shape 8,8,8 --pin vec=8 --pin tile_y=[8,1,1,1]",
                              "the pinned space is empty"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(CommandLine, HelpStillExitsZero) {
  ScratchDir dir;
  const auto top = RunProgram(kProgram + " --help", dir.path());
  EXPECT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(top.out.find("tune"), std::string::npos) << top.out;
  const auto tune = RunProgram(kProgram + " tune --help", dir.path());
  EXPECT_EQ(tune.exit_code, 0) << tune.err;
  EXPECT_NE(tune.out.find("--op"), std::string::npos) << tune.out;
}

// The test-only operator whose kernels crash or hang on purpose answers only to those who ask.
TEST(CommandLine, SelftestOperatorNeedsTheDiagnosticsSwitch) {
  ScratchDir dir;
  const auto db = dir.path() / "h.db";
  const std::string args = " tune --op selftest --shape 64 --trials 1 --db " + db.string();
  testing::ExpectRefusal(RunProgram("env -u TENSORTUNE_DIAGNOSTICS " + kProgram + args, dir.path()),
                         "unknown operator 'selftest'", db);
  const auto r =
      RunProgram("TENSORTUNE_DIAGNOSTICS=1 " + kProgram + args + " --pin behaviour=0 --min-time 0.01", dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// `tensortune tuners` documents what the refusals above check: every tuner, every option.
TEST(TunersCommand, ListsEveryTunerWithItsOptionsAndDefaults) {
  ScratchDir dir;
  const auto r = RunProgram(kProgram + " tuners", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line :
       {"auto: ", "ga: ", "gga: ", "opevo: ", "xgb: ", "xgb-tl: ", "gbfs: ", "random: ", "grid: ", "bo: "})
    EXPECT_NE(("\n" + r.out).find(std::string("\n") + line), std::string::npos) << line << "\n" << r.out;
  EXPECT_NE(r.out.find("pop_size              integer, at least 1; default 16"), std::string::npos) << r.out;  // gga
  EXPECT_NE(r.out.find("budget                integer, at least 0; default 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("threshold             number, in [0, 1]; default 0.6"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tt
