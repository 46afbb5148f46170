// End to end: networks, tasks and tune-network on the default OpenCL device (POCL in CI).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>

#include "run_program.h"

namespace tt {
namespace {

using testing::RunProgram;
using testing::ScratchDir;
using testing::Sql;

const std::string kProgram = TENSORTUNE_BIN;

// Whether a process runs: not reaped and not a zombie (state Z in /proc/PID/stat).
bool ProcessAlive(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t name_end = text.rfind(')');
  return name_end != std::string::npos && name_end + 2 < text.size() && text[name_end + 2] != 'Z';
}

// Two small GEMM layers, one repeated: quick to tune on a CPU.
std::filesystem::path WriteTinyNetwork(const std::filesystem::path& dir) {
  const auto path = dir / "tiny.json";
  std::ofstream(path) << R"({"name": "tiny", "layers": [
    {"name": "proj", "op": "gemm", "shape": "{batch*32},32,32", "repeat": 2},
    {"name": "head", "op": "gemm", "shape": "{batch*16},64,32"}]})";
  return path;
}

TEST(TasksCommand, ShowsResnet18ConvolutionTasksWithWeights) {
  ScratchDir dir;
  const auto r = RunProgram(kProgram + " tasks resnet18 --json", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto tasks = nlohmann::json::parse(r.out);
  ASSERT_EQ(tasks.size(), 12u);
  int convs = 0, weight = 0;
  for (const auto& t : tasks) {
    convs += t["op"] == "conv2d";
    weight += t["weight"].get<int>();
    EXPECT_FALSE(t["sketches"].empty());
  }
  EXPECT_EQ(convs, 11);
  EXPECT_EQ(weight, 21);
  EXPECT_EQ(tasks[1]["weight"], 4);  // layer1's four identical 3x3 convolutions
  const auto text = RunProgram(kProgram + " tasks resnet18", dir.path());
  EXPECT_NE(text.out.find("| 1 | conv2d | conv2d:n=1,ci=64,h=56,w=56,co=64"), std::string::npos) << text.out;
}

TEST(TuneNetworkCommand, TunesAUserNetworkAndRecordsEveryTrial) {
  ScratchDir dir;
  const auto db = dir.path() / "h.db";
  const auto r = RunProgram(
      kProgram + " tune-network " + WriteTinyNetwork(dir.path()).string() +
          " --trials 12 --batch-size 4 --min-time 0.005 --tuner random --measure-default --json --db " + db.string(),
      dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["trials_used"], 12);
  EXPECT_EQ(report["tasks_unmeasured"], 0);
  // The anytime curve: the estimate after the first round, then after every round.
  ASSERT_GE(report["anytime"].size(), 2u);
  EXPECT_EQ(report["anytime"].back()["trials"], 12);
  EXPECT_DOUBLE_EQ(report["anytime"].back()["latency_s"].get<double>(), report["latency_s"].get<double>());
  // Where the curve first came within 1% of where the search ended (before the leaders were timed
  // again): what a smaller budget would have bought.
  const double search_end = report["retimed"]["measurements"].get<int>() > 0
                                ? report["retimed"]["latency_before_s"].get<double>()
                                : report["latency_s"].get<double>();
  int64_t enough = 12;
  for (const auto& point : report["anytime"])
    if (enough == 12 && point["latency_s"].get<double>() <= search_end * 1.01) enough = point["trials"].get<int64_t>();
  EXPECT_EQ(report["within_1pct_after_trials"], enough);
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM network_tasks WHERE default_time_s > 0 AND first_config IS NOT NULL"), "2\n");
  EXPECT_GT(report["latency_s"].get<double>(), 0);
  EXPECT_LE(report["latency_s"].get<double>(), report["default_latency_s"].get<double>());
  ASSERT_EQ(report["tasks"].size(), 2u);
  EXPECT_EQ(report["tasks"][0]["weight"], 2);
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM trials"), "12\n");
  EXPECT_EQ(Sql(db, "SELECT status, trials_requested FROM network_runs"), "finished|12\n");
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM runs WHERE network_run_id IS NULL"), "0\n");

  // The report plots the estimated latency of the network run over its trials.
  const auto page = dir.path() / "report.html";
  const auto report_run =
      RunProgram(kProgram + " report --network-run 1 --db " + db.string() + " --out " + page.string(), dir.path());
  ASSERT_EQ(report_run.exit_code, 0) << report_run.err;
  const std::string html = testing::ReadFile(page);
  EXPECT_NE(html.find("<h2>tiny (batch 1) on "), std::string::npos);
  EXPECT_NE(html.find("estimated latency (ms)"), std::string::npos);
  EXPECT_NE(html.find("network run 1: scheduler ucb"), std::string::npos);
}

// One trial for two tasks: the heavier (proj, 2 x 32^3) is measured; the other runs the config
// transferred from it, labelled unmeasured in the output and the database.
TEST(TuneNetworkCommand, WithFewerTrialsThanTasksTheUnmeasuredTaskIsLabelled) {
  ScratchDir dir;
  const auto db = dir.path() / "h.db";
  const std::string command = kProgram + " tune-network " + WriteTinyNetwork(dir.path()).string() +
                              " --trials 1 --min-time 0.005 --db " + db.string();
  const auto r = RunProgram(command + " --json", dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["trials_used"], 1);
  EXPECT_EQ(report["tasks_unmeasured"], 1);
  ASSERT_EQ(report["tasks"].size(), 2u);
  EXPECT_EQ(report["tasks"][0]["unmeasured"], false);
  EXPECT_EQ(report["tasks"][1]["unmeasured"], true);
  EXPECT_TRUE(report["tasks"][1]["best"].is_null());
  EXPECT_EQ(report["tasks"][1]["first"]["source"].get<std::string>().rfind("transferred from gemm:m=32,n=32,k=32", 0),
            0u)
      << report["tasks"][1]["first"];
  EXPECT_TRUE(report["tasks"][0]["default_time_s"].is_null());  // not measured unless asked
  EXPECT_EQ(Sql(db, "SELECT task_index, unmeasured FROM network_tasks ORDER BY task_index"), "0|0\n1|1\n");
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM network_tasks WHERE default_time_s IS NOT NULL"), "0\n");

  // In text: the table and the estimate say so.
  ScratchDir text_dir;
  const auto text = RunProgram(kProgram + " tune-network " + WriteTinyNetwork(text_dir.path()).string() +
                                   " --trials 1 --min-time 0.005 --db " + (text_dir.path() / "h.db").string(),
                               text_dir.path());
  ASSERT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("| 1 | head | 1 | - | unmeasured |"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("(1 unmeasured: running transferred configs, left out)"), std::string::npos) << text.out;
}

TEST(TuneNetworkCommand, MalformedUserNetworkIsRefusedNamingTheFieldWithNothingWritten) {
  ScratchDir dir;
  const auto file = dir.path() / "bad.json";
  std::ofstream(file)
      << R"({"name": "bad", "layers": [{"op": "gemm", "shape": "8,8,8"}, {"op": "conv2d", "shape": "n=1,ci=3"}]})";
  const auto db = dir.path() / "h.db";
  const auto r =
      RunProgram(kProgram + " tune-network " + file.string() + " --trials 4 --db " + db.string(), dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("layers[1]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("field 'op'/'shape'"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db));
  const auto unknown = RunProgram(kProgram + " tune-network resnet19 --trials 4 --db " + db.string(), dir.path());
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(db));
}

// kill -9 at some moment mid-run, then the same command again: it finishes the budget and
// measures no configuration twice.
TEST(TuneNetworkCommand, KilledMidRunTheSameCommandContinuesWithoutMeasuringTwice) {
  ScratchDir dir;
  const auto db = dir.path() / "h.db";
  const std::string command = kProgram + " tune-network " + WriteTinyNetwork(dir.path()).string() +
                              " --trials 24 --batch-size 2 --min-time 0.005 --tuner opevo --db " + db.string();
  const std::string background = command + " >/dev/null 2>&1 & echo $!";
  FILE* shell = popen(background.c_str(), "r");
  ASSERT_NE(shell, nullptr);
  int pid = 0;
  ASSERT_EQ(fscanf(shell, "%d", &pid), 1);
  pclose(shell);
  // Wait until some batches are in, then kill without warning; the deadlines only guard
  // against waiting for ever.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  for (; std::chrono::steady_clock::now() < give_up; std::this_thread::sleep_for(std::chrono::milliseconds(50))) {
    if (!std::filesystem::exists(db)) continue;
    const auto out =
        RunProgram("sqlite3 " + db.string() + " 'SELECT count(*) FROM trials' 2>/dev/null", dir.path()).out;
    if (!out.empty() && std::stoi(out) >= 6) break;
  }
  kill(pid, SIGKILL);
  // Gone once its process is reaped (or a zombie): nothing it wrote is in flight any more.
  const auto gone_by = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (ProcessAlive(pid) && std::chrono::steady_clock::now() < gone_by)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_FALSE(ProcessAlive(pid));
  const int before = std::stoi(Sql(db, "SELECT count(*) FROM trials"));
  ASSERT_GE(before, 6);
  ASSERT_LT(before, 24) << "the run finished before it could be killed";
  EXPECT_EQ(Sql(db, "SELECT status FROM network_runs"), "running\n");

  const auto second = RunProgram(command, dir.path());
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_NE(second.out.find("continuing network run 1"), std::string::npos) << second.out;
  EXPECT_EQ(Sql(db, "SELECT count(*) FROM trials"), "24\n");
  // No config is measured again once it has a final record. A transient failure (a build cut
  // by its time limit on a loaded machine) is measured again by design, so only those repeat.
  EXPECT_EQ(Sql(db,
                "SELECT count(*) FROM trials t WHERE EXISTS (SELECT 1 FROM trials u WHERE u.id < t.id AND "
                "u.workload_id = t.workload_id AND u.template_id = t.template_id AND u.config_key = t.config_key "
                "AND u.transient = 0)"),
            "0\n");
  EXPECT_EQ(Sql(db, "SELECT count(*), status FROM network_runs"), "1|finished\n");
}

}  // namespace
}  // namespace tt
