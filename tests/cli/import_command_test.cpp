// `tensortune import`: AutoTVM and TopHub logs into the history, all or nothing per call.
#include <gtest/gtest.h>

#include <fstream>

#include "history/sqlite_history_store.h"
#include "run_program.h"

namespace tt {
namespace {

using testing::RunProgram;
using testing::ScratchDir;

const std::string kProgram = TENSORTUNE_BIN;
// Two whole TopHub logs, gzip-compressed as import reads them.
const std::string kTopHub = std::string(TT_SOURCE_DIR) + "/tests/data/tophub/";
const std::string kSample = std::string(TT_SOURCE_DIR) + "/tests/data/tophub_sample.log";

std::string Line(const std::string& path, int number) {
  std::ifstream in(path);
  std::string line;
  for (int i = 0; i < number; ++i) std::getline(in, line);
  return line;
}

TEST(ImportCommand, ImportsBothTopHubFilesWithCountsPerTaskAndOnlyOnce) {
  ScratchDir dir;
  const std::string import = kProgram + " import " + kTopHub + "cuda_v0.10.log.gz " + kTopHub +
                             "opencl_v0.04.log.gz --db " + (dir.path() / "h.db").string();
  const auto r = RunProgram(import, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cuda_v0.10.log.gz: 825 records: 625 imported, 0 already present, 200 skipped, 0 bad"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  depthwise_conv2d_nchw.cuda: 97 imported"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  conv2d_nchw_winograd.cuda: 0 imported, 0 already present, 95 skipped"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("opencl_v0.04.log.gz: 97 records: 64 imported"), std::string::npos) << r.out;

  const auto again = RunProgram(import, dir.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("825 records: 0 imported, 625 already present"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("97 records: 0 imported, 64 already present"), std::string::npos) << again.out;
}

TEST(ImportCommand, ATruncatedLineRefusesTheImportWithItsLineNumber) {
  ScratchDir dir;
  const auto log = dir.path() / "cut.log";
  {
    std::ofstream out(log);
    out << "# a comment\n"
        << Line(kSample, 1) << "\n"
        << Line(kSample, 2).substr(0, 80) << "\n"
        << Line(kSample, 3) << "\n";
  }
  const auto db = dir.path() / "h.db";
  const auto r = RunProgram(kProgram + " import " + log.string() + " --db " + db.string(), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(log.string() + ":3: not valid JSON (truncated?)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db));

  const auto skipped = RunProgram(kProgram + " import --skip-bad " + log.string() + " --db " + db.string(), dir.path());
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  EXPECT_NE(skipped.err.find(":3: not valid JSON"), std::string::npos) << skipped.err;
  EXPECT_NE(skipped.out.find("3 records: 2 imported, 0 already present, 0 skipped, 1 bad"), std::string::npos)
      << skipped.out;
}

// Imported devices have no limits (NULL in the history); their records must stay points of
// the space, so that `best` answers from them as AutoTVM answered from TopHub.
TEST(ImportCommand, BestAnswersFromImportedRecords) {
  ScratchDir dir;
  const auto log = dir.path() / "dw.log";
  {
    std::string slower = Line(kSample, 24);
    const std::string unrolled = "[\"unroll_explicit\", \"ot\", 1]", cost = "7.498452183395762e-06";
    slower.replace(slower.find(unrolled), unrolled.size(), "[\"unroll_explicit\", \"ot\", 0]");
    slower.replace(slower.find(cost), cost.size(), "1.5e-05");
    std::string tx2 = Line(kSample, 20);  // made the fastest of all
    tx2.replace(tx2.find("3.744394313505425e-05"), 21, "2e-06");
    std::ofstream(log) << tx2 << "\n" << Line(kSample, 24) << "\n" << slower << "\n";
  }
  const std::string db = (dir.path() / "h.db").string();
  const auto r = RunProgram(kProgram + " import " + log.string() + " --db " + db, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_NE(r.out.find("3 records: 3 imported"), std::string::npos) << r.out;

  const std::string best =
      kProgram + " best --op depthwise_conv2d --shape n=1,c=512,h=14,w=14,kh=3,kw=3,stride=2,pad=1 --db " + db;
  const auto titanx = RunProgram(best + " --device titanx", dir.path());
  ASSERT_EQ(titanx.exit_code, 0) << titanx.err;
  EXPECT_NE(titanx.out.find("\"fallback\": false"), std::string::npos) << titanx.out;
  EXPECT_NE(titanx.out.find("\"device\": \"cuda -model=titanx\""), std::string::npos) << titanx.out;
  EXPECT_NE(titanx.out.find("\"config_key\": \"tile_f=[256,1,2,1];tile_y=[1,1,7,1];tile_x=[1,1,7,1];"
                            "auto_unroll_max_step=1500;unroll_explicit=1\""),
            std::string::npos)
      << titanx.out;
  const auto any = RunProgram(best, dir.path());
  ASSERT_EQ(any.exit_code, 0) << any.err;
  EXPECT_NE(any.out.find("\"device\": \"cuda -model=tx2\""), std::string::npos) << any.out;
}

// AutoTVM's older record format (TopHub's cuda v0.01-v0.07): the same trials as the same
// records written in today's format.
TEST(ImportCommand, RecordFormat01ImportsTheSameTrialsAsFormat02) {
  ScratchDir dir;
  const std::string data = std::string(TT_SOURCE_DIR) + "/tests/data/";
  const auto old_db = dir.path() / "old.db", new_db = dir.path() / "new.db";
  const auto old_import =
      RunProgram(kProgram + " import " + data + "tophub_cuda_v0.07_sample.log --db " + old_db.string(), dir.path());
  ASSERT_EQ(old_import.exit_code, 0) << old_import.err;
  EXPECT_NE(old_import.out.find("11 records: 8 imported, 0 already present, 3 skipped, 0 bad"), std::string::npos)
      << old_import.out;
  EXPECT_NE(old_import.out.find("11 records in AutoTVM's record format 0.1"), std::string::npos) << old_import.out;
  const auto new_import =
      RunProgram(kProgram + " import " + data + "tophub_cuda_v0.08_sample.log --db " + new_db.string(), dir.path());
  ASSERT_EQ(new_import.exit_code, 0) << new_import.err;
  const std::string query =
      "SELECT workload, template, device, config_key, status, time_s FROM trials_view ORDER BY 1, 2, 3, 4";
  const std::string trials = testing::Sql(old_db, query);
  EXPECT_EQ(trials, testing::Sql(new_db, query));
  EXPECT_EQ(std::count(trials.begin(), trials.end(), '\n'), 8) << trials;

  const auto oldest =
      RunProgram(kProgram + " import " + data + "tophub_cuda_v0.01_sample.log --db " + old_db.string(), dir.path());
  ASSERT_EQ(oldest.exit_code, 0) << oldest.err;
  EXPECT_NE(oldest.out.find("3 records: 3 imported"), std::string::npos) << oldest.out;
}

// A well-formed record whose knob value our sketch does not offer is skipped, naming knob and
// value; the rest of the file imports.
TEST(ImportCommand, AKnobValueOutsideOurSpaceIsSkippedNotBad) {
  ScratchDir dir;
  const std::string log = std::string(TT_SOURCE_DIR) + "/tests/data/tophub_rocm_unroll_sample.log";
  const auto r = RunProgram(kProgram + " import " + log + " --db " + (dir.path() / "h.db").string(), dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find("4 records: 2 imported, 0 already present, 2 skipped, 0 bad"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 auto_unroll_max_step = 128 is not a value of conv2d_direct_local (0, 512, 1500)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1 auto_unroll_max_step = 1024 is not a value"), std::string::npos) << r.out;
}

TEST(ImportCommand, AMissingFileIsBadInput) {
  ScratchDir dir;
  const auto r = RunProgram(kProgram + " import /nonexistent.log --db " + (dir.path() / "h.db").string(), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot read /nonexistent.log"), std::string::npos) << r.err;
  const auto directory =
      RunProgram(kProgram + " import " + dir.path().string() + " --db " + (dir.path() / "h.db").string(), dir.path());
  EXPECT_EQ(directory.exit_code, 2);
  EXPECT_NE(directory.err.find("is a directory"), std::string::npos) << directory.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "h.db"));
}

}  // namespace
}  // namespace tt

namespace tt {
namespace {

// A Kernel Tuner cache of a GEMM-like kernel on a GPU we do not have: imported as a
// user-defined space and replayed by every tuner.
TEST(ImportCommand, AKernelTunerCacheImportsAndEveryTunerReplaysIt) {
  ScratchDir dir;
  const std::string db = (dir.path() / "h.db").string();
  const std::string cache = std::string(TT_SOURCE_DIR) + "/tests/data/kernel_tuner_gemm_cache.json";
  const auto r = RunProgram(kProgram + " import " + cache + " --db " + db, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("396 records: 396 imported"), std::string::npos) << r.out;
  EXPECT_NE(RunProgram(kProgram + " import " + cache + " --db " + db, dir.path()).out.find("396 already present"),
            std::string::npos);

  const auto c = RunProgram(kProgram +
                                " compare --space matmul_kernel --tuners opevo,ga,xgb,random,grid,gbfs,bo"
                                " --seeds 2 --trials 400 --db " +
                                db,
                            dir.path());
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("on NVIDIA A100-PCIE-40GB: 396 recorded configs (331 ok)"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("Recorded 396 of 396 valid configs of the space (100%)"), std::string::npos) << c.out;
  for (const char* tuner : {"| opevo |", "| ga |", "| xgb |", "| random |", "| grid |", "| gbfs |", "| bo |"}) {
    const auto row = c.out.find(tuner);
    ASSERT_NE(row, std::string::npos) << tuner << "\n" << c.out;
    // 400 trials exhaust the 396 configurations: every seed reaches the best.
    EXPECT_NE(c.out.substr(row, c.out.find('\n', row) - row).find("(2/2) |"), std::string::npos) << c.out;
  }
}

TEST(ImportCommand, ATruncatedKernelTunerCacheIsRefusedWithItsLine) {
  ScratchDir dir;
  const auto cut = dir.path() / "cut.json";
  {
    std::ifstream in(std::string(TT_SOURCE_DIR) + "/tests/data/kernel_tuner_gemm_cache.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(cut) << text.substr(0, 5000);
  }
  const auto db = dir.path() / "h.db";
  const auto r = RunProgram(kProgram + " import " + cut.string() + " --db " + db.string(), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(cut.string() + ": line "), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db));
}

const std::string kConvolution = std::string(TT_SOURCE_DIR) + "/tests/data/kernel_tuner_convolution_sample.json";

std::string Text(const std::string& path) { return testing::ReadFile(path); }

std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Some published caches (the benchmark hub's MI250X files) have an empty device_name.
TEST(ImportCommand, AKernelTunerCacheWithoutDeviceNameIsNamedAfterTheFileOrTheOption) {
  ScratchDir dir;
  const auto cache = dir.path() / "MI250X.json";
  std::ofstream(cache) << Replaced(Text(kConvolution), R"("device_name": "NVIDIA RTX A6000")", R"("device_name": "")");
  const std::string db = (dir.path() / "h.db").string();
  const auto r = RunProgram(kProgram + " import " + cache.string() + " --db " + db, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("27 records: 27 imported"), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("device_name is empty: the device is named 'MI250X' after the file (--device-name NAME names it)"),
      std::string::npos)
      << r.out;
  EXPECT_EQ(testing::Sql(db, "SELECT DISTINCT device FROM trials_view"), "MI250X\n");

  const auto named =
      RunProgram(kProgram + " import " + cache.string() + " --device-name 'AMD MI250X' --db " + db, dir.path());
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_NE(named.out.find("the device is named 'AMD MI250X' by --device-name"), std::string::npos) << named.out;
  EXPECT_EQ(testing::Sql(db, "SELECT count(*) FROM trials_view WHERE device = 'AMD MI250X'"), "27\n");
  // A cache that names its device keeps it, and says so.
  const auto kept =
      RunProgram(kProgram + " import " + kConvolution + " --device-name 'AMD MI250X' --db " + db, dir.path());
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_NE(kept.out.find("the cache names its device 'NVIDIA RTX A6000': --device-name names only"), std::string::npos)
      << kept.out;
}

// Published caches are gzip-compressed: read as they are; a cut one is named unusable.
TEST(ImportCommand, AGzipCompressedCacheImports) {
  ScratchDir dir;
  const auto gz = dir.path() / "A6000.json.gz";
  ASSERT_EQ(RunProgram("sh -c 'gzip -c " + kConvolution + " > " + gz.string() + "'", dir.path()).exit_code, 0);
  const std::string db = (dir.path() / "h.db").string();
  const auto r = RunProgram(kProgram + " import " + gz.string() + " --db " + db, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("27 records: 27 imported"), std::string::npos) << r.out;
  const auto cut = dir.path() / "cut.json.gz";
  std::ofstream(cut) << testing::ReadFile(gz).substr(0, 2000);
  const auto refused = RunProgram(kProgram + " import " + cut.string() + " --db " + db, dir.path());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find(cut.string() + ": not a whole gzip file (truncated?)"), std::string::npos) << refused.err;
}

TEST(ImportCommand, KernelTunersCompilationFailuresAreCompileErrors) {
  ScratchDir dir;
  const std::string db = (dir.path() / "h.db").string();
  ASSERT_EQ(RunProgram(kProgram + " import " + kConvolution + " --db " + db, dir.path()).exit_code, 0);
  EXPECT_EQ(testing::Sql(db, "SELECT status, count(*) FROM trials GROUP BY status ORDER BY status"),
            "compile_error|3\nok|22\nruntime_error|2\n");
}

TEST(ImportCommand, HelpNamesEveryFormatAndAnUnusableFileIsNamedAsSuch) {
  ScratchDir dir;
  const auto help = RunProgram(kProgram + " import --help", dir.path());
  ASSERT_EQ(help.exit_code, 0);
  for (const char* format :
       {"AutoTVM logs", "record format 0.2 or 0.1", "Kernel Tuner cache files", "open", "--device-name"})
    EXPECT_NE(help.out.find(format), std::string::npos) << format << "\n" << help.out;

  const auto unusable = dir.path() / "header.json";
  std::ofstream(unusable)
      << R"({"kernel_name": "k", "tune_params_keys": ["a"], "tune_params": {"a": []}, "cache": {}})";
  const std::string db = (dir.path() / "h.db").string();
  const auto r = RunProgram(kProgram + " import " + unusable.string() + " " + kSample + " --db " + db, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(unusable.string() + ": tune_params.a is not a non-empty list"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(unusable.string() + " unusable: nothing imported"), std::string::npos) << r.err;
  const auto skipped =
      RunProgram(kProgram + " import --skip-bad " + unusable.string() + " " + kSample + " --db " + db, dir.path());
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  EXPECT_NE(skipped.out.find(unusable.string() + ": unusable, nothing of it imported"), std::string::npos)
      << skipped.out;
  EXPECT_NE(skipped.out.find("24 records: 22 imported"), std::string::npos) << skipped.out;
}

// Kernel Tuner writes its cache as it tunes, closing it only at the end; it reads an open one.
TEST(ImportCommand, AnOpenKernelTunerCacheImports) {
  ScratchDir dir;
  const auto open = dir.path() / "open.json";
  std::string text = Text(kConvolution);
  std::ofstream(open) << text.substr(0, text.rfind("}\n}")) << ",";
  const auto r =
      RunProgram(kProgram + " import " + open.string() + " --db " + (dir.path() / "h.db").string(), dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("27 records: 27 imported"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("an open cache (an interrupted run's, without its closing brackets)"), std::string::npos)
      << r.out;
}

// Bad entries are named by their key, one line each, and counted as cache entries.
TEST(ImportCommand, BadCacheEntriesAreNamedByKey) {
  ScratchDir dir;
  const auto cache = dir.path() / "bad.json";
  std::string text = Text(kConvolution);
  text = Replaced(text, R"("time": 6.288288041949272)", R"("time": "fast")");
  text = Replaced(
      text,
      R"("16,1,1,1,0,0,0,1,15,15": {"block_size_x": 16, "block_size_y": 1, "tile_size_x": 1, "tile_size_y": 1, "read_only": 0)",
      R"("16,1,1,1,0,0,0,1,15,15": {"block_size_x": 16, "block_size_y": 1, "tile_size_x": 1, "tile_size_y": 1, "read_only": 1)");
  std::ofstream(cache) << text;
  const std::string db = (dir.path() / "h.db").string();
  const auto r = RunProgram(kProgram + " import " + cache.string() + " --db " + db, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(cache.string() +
                       ": cache entry '16,1,1,1,0,0,0,1,15,15': the key does not match the entry's parameters"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("\"time\" is \"fast\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 bad cache entries in " + cache.string() + ": nothing imported"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db));
}

// Three caches of one kernel name: two spaces (other parameters), and two GPUs of one space.
TEST(ImportCommand, SpacesOfOneKernelNameStayApartAndCompareSpacePicks) {
  ScratchDir dir;
  const std::string db = (dir.path() / "h.db").string();
  const std::string text = Text(kConvolution);
  const auto a4000 = dir.path() / "a4000.json", w6600 = dir.path() / "w6600.json";
  std::ofstream(a4000) << Replaced(text, "NVIDIA RTX A6000", "NVIDIA RTX A4000");
  // Another parameter set: use_cmem may be 0 too.
  std::ofstream(w6600) << Replaced(Replaced(text, "NVIDIA RTX A6000", "AMD Radeon PRO W6600"), "\"use_cmem\": [\n1\n]",
                                   "\"use_cmem\": [\n0,\n1\n]");
  const auto r = RunProgram(
      kProgram + " import " + kConvolution + " " + a4000.string() + " " + w6600.string() + " --db " + db, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::Sql(db, "SELECT count(*) FROM user_spaces"), "2\n");

  const std::string compare =
      kProgram + " compare --space convolution_kernel --tuners random --seeds 1 --trials 30 --db " + db;
  const auto ambiguous = RunProgram(compare, dir.path());
  EXPECT_EQ(ambiguous.exit_code, 2);
  EXPECT_NE(ambiguous.err.find("2 imported spaces are named 'convolution_kernel'"), std::string::npos) << ambiguous.err;
  EXPECT_NE(ambiguous.err.find("on NVIDIA RTX A6000, NVIDIA RTX A4000)"), std::string::npos) << ambiguous.err;
  EXPECT_NE(ambiguous.err.find("on AMD Radeon PRO W6600)"), std::string::npos) << ambiguous.err;
  const size_t id = ambiguous.err.find("convolution_kernel@", ambiguous.err.find("A4000)")) + 19;
  ASSERT_LT(id, ambiguous.err.size()) << ambiguous.err;
  const std::string w6600_id = ambiguous.err.substr(id, 8);

  const auto by_device = RunProgram(compare + " --device W6600", dir.path());
  ASSERT_EQ(by_device.exit_code, 0) << by_device.err;
  EXPECT_NE(by_device.out.find("on AMD Radeon PRO W6600: 27 recorded configs"), std::string::npos) << by_device.out;
  const auto by_id = RunProgram(kProgram + " compare --space convolution_kernel@" + w6600_id +
                                    " --tuners random --seeds 1 --trials 30 --db " + db,
                                dir.path());
  ASSERT_EQ(by_id.exit_code, 0) << by_id.err;
  EXPECT_NE(by_id.out.find("on AMD Radeon PRO W6600"), std::string::npos) << by_id.out;
  // Two GPUs of one space: --device picks, and a device it lacks is named as such.
  const auto a4000_run = RunProgram(compare + " --device A4000", dir.path());
  ASSERT_EQ(a4000_run.exit_code, 0) << a4000_run.err;
  EXPECT_NE(a4000_run.out.find("on NVIDIA RTX A4000"), std::string::npos) << a4000_run.out;
  const auto none = RunProgram(compare + " --device V100", dir.path());
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no imported space 'convolution_kernel' on a device matching 'V100'"), std::string::npos)
      << none.err;
}

// A Kernel Tuner kernel may be named like one of our sketches; it stays an imported space.
TEST(ImportCommand, AKernelTunerKernelNamedLikeOurSketchStaysAnImportedSpace) {
  ScratchDir dir;
  const std::string db = (dir.path() / "h.db").string();
  const auto gemm = dir.path() / "gemm.json", conv = dir.path() / "conv.json";
  std::ofstream(gemm) << Replaced(Text(std::string(TT_SOURCE_DIR) + "/tests/data/kernel_tuner_gemm_cache.json"),
                                  "\"matmul_kernel\"", "\"gemm_tiled\"");
  std::ofstream(conv) << Replaced(Text(kConvolution), "\"convolution_kernel\"", "\"conv2d_direct_local\"");
  const auto r = RunProgram(kProgram + " import " + gemm.string() + " " + conv.string() + " --db " + db, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      testing::Sql(db, "SELECT k.name, k.op FROM user_spaces JOIN kernel_templates k ON k.id = template_id ORDER BY 1"),
      "conv2d_direct_local|kernel_tuner\ngemm_tiled|kernel_tuner\n");
  const auto c = RunProgram(
      kProgram + " compare --space conv2d_direct_local --tuners random --seeds 1 --trials 30 --db " + db, dir.path());
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("27 recorded configs"), std::string::npos) << c.out;

  // No AutoTVM record can carry a user-defined space: a clear refusal, never a crash.
  const auto out = dir.path() / "out.log";
  const auto e = RunProgram(kProgram + " export --format autotvm --db " + db + " --out " + out.string(), dir.path());
  EXPECT_EQ(e.exit_code, 2) << e.out << e.err;
  EXPECT_NE(e.err.find("nothing to export as an AutoTVM log: 423 trials of imported Kernel Tuner kernels "
                       "(conv2d_direct_local, gemm_tiled) have no AutoTVM form"),
            std::string::npos)
      << e.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  // Beside trials of our sketches, they are left out, and what is written imports back.
  ASSERT_EQ(RunProgram(kProgram + " import " + kSample + " --db " + db, dir.path()).exit_code, 0);
  const auto mixed =
      RunProgram(kProgram + " export --format autotvm --db " + db + " --out " + out.string(), dir.path());
  ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
  EXPECT_NE(mixed.err.find("left out 423 trials of imported Kernel Tuner kernels"), std::string::npos) << mixed.err;
  const auto back =
      RunProgram(kProgram + " import " + out.string() + " --db " + (dir.path() / "back.db").string(), dir.path());
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_NE(back.out.find("22 records: 22 imported"), std::string::npos) << back.out;
}

}  // namespace
}  // namespace tt
