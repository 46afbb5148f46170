// tensortune::runtime on the default OpenCL device: configs chosen from a history database and
// from kernel packs, run on the test's own context, queue and buffers, checked against the
// CPU reference; and every way a choice can go wrong, each a clear error or a labelled
// fallback, never a wrong result.
#include <atomic>
#include <fstream>
#include <thread>

#include "cli/run_program.h"
#include "ops/starting_config.h"
#include "runtime/runtime_internal.h"
#include "runtime_test_support.h"
#include "tensortune/history.h"
#include "tensortune/layouts.h"

namespace tt {
namespace {

using tensortune::ErrorCode;
using tensortune::Origin;
using testing::ClEnvironment;
using testing::CodeOf;
using testing::Db;
using testing::ScratchDir;

const tensortune::Workload kGemm{"gemm", "64,48,40", {}};
const tensortune::Workload kConv{"conv2d", "n=1,ci=5,h=9,w=11,co=20,kh=3,kw=3,stride=1,pad=1", {}};
const tensortune::Workload kDepthwise{"depthwise_conv2d", "n=1,c=20,h=10,w=9,kh=3,kw=3,stride=2,pad=1", {}};

// The operator's output for plain-layout inputs: each converted to its argument's layout
// first (tensortune/layouts.h), the output converted back.
std::vector<float> RunPlain(ClEnvironment& cl, const tensortune::Operator& op,
                            const std::vector<std::vector<float>>& plain, cl_command_queue queue = nullptr) {
  std::vector<cl_mem> buffers;
  size_t next = 0, output = 0;
  for (size_t a = 0; a < op.arguments().size(); ++a) {
    const auto& arg = op.arguments()[a];
    if (arg.is_output) {
      output = a;
      buffers.push_back(cl.Empty(arg.elements));
    } else {
      buffers.push_back(cl.Buffer(a == 1 ? tensortune::PackWeights(arg, plain[next++])
                                         : tensortune::ConvertActivations(arg, plain[next++])));
    }
  }
  op.Run(queue ? queue : cl.queue(), buffers);
  return tensortune::ToPlain(op.arguments()[output], cl.Read(buffers[output], op.arguments()[output].elements, queue));
}

// Random small-integer inputs in plain layouts, and the plain-layout sketch's reference.
struct Case {
  std::vector<std::vector<float>> inputs;
  std::vector<float> want;
};

Case MakeCase(const tensortune::Workload& pub, uint64_t seed = 3) {
  const Workload w = testing::Parse(pub);
  const char* plain = w.op == "gemm"     ? "gemm_tiled"
                      : w.op == "conv2d" ? "conv2d_direct_global"
                                         : "depthwise_conv2d_direct";
  const KernelTemplate& t = *FindTemplate(plain);
  Case c;
  std::vector<const float*> pointers;
  const auto buffers = t.Buffers(w);
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].is_output) {
      c.want.resize(buffers[i].elements);
      continue;
    }
    c.inputs.push_back(testing::SmallIntegers(buffers[i].elements, seed + i));
  }
  for (const auto& in : c.inputs) pointers.push_back(in.data());
  t.Reference(w, pointers, c.want.data());
  return c;
}

void ExpectCorrect(ClEnvironment& cl, const tensortune::Operator& op, const tensortune::Workload& w) {
  const Case c = MakeCase(w);
  testing::ExpectSame(RunPlain(cl, op, c.inputs), c.want);
}

tensortune::PrepareOptions Strict(Origin least) {
  tensortune::PrepareOptions o;
  o.least_trusted = least;
  return o;
}

TEST(Runtime, ExactRecordRunsOnTheCallersBuffersWithItsPrePassAndScratch) {
  ClEnvironment cl;
  ScratchDir dir;
  const Workload w = testing::Parse(kGemm);
  const std::string key = testing::FindConfig(
      w, "gemm_tiled", cl.info(), [](const ConfigSpace& s, const Config& c) { return s.Scalar(c, "pack_b") == 1; });
  ASSERT_FALSE(key.empty());
  testing::Record(Db(dir), w, "gemm_tiled", key, cl.info(), 25);

  const tensortune::Runtime runtime(cl.context(), cl.device());
  const auto history = tensortune::OpenHistory(Db(dir));
  const tensortune::Operator op = runtime.Prepare(kGemm, *history);
  EXPECT_EQ(op.choice().origin, Origin::kExact);
  EXPECT_EQ(op.choice().config_key, key);
  EXPECT_EQ(op.choice().kernel_template, "gemm_tiled");
  EXPECT_NEAR(op.choice().recorded_time_s, 2.0 * 64 * 48 * 40 / 25e9, 1e-12);
  EXPECT_NE(op.choice().note.find("exact"), std::string::npos) << op.choice().note;
  ASSERT_EQ(op.spec().launches.size(), 2u);  // pack_b, then matmul
  EXPECT_EQ(op.spec().launches[0].kernel, "pack_b");
  EXPECT_GT(op.scratch_bytes(), 0u);
  ASSERT_EQ(op.arguments().size(), 3u);
  EXPECT_EQ(op.arguments()[1].dims, (std::vector<int64_t>{40, 48}));
  EXPECT_EQ(op.arguments()[2].layout, tensortune::Layout::kRowMajor);
  ExpectCorrect(cl, op, kGemm);
  ExpectCorrect(cl, op, kGemm);  // the operator's scratch buffer again

  // The caller's own scratch buffer.
  const Case c = MakeCase(kGemm, 11);
  std::vector<cl_mem> buffers{cl.Buffer(c.inputs[0]), cl.Buffer(c.inputs[1]), cl.Empty(64 * 48)};
  tensortune::EnqueueOptions options;
  options.scratch = cl.Empty(op.spec().scratch_elements);
  cl_event done = nullptr;
  options.done = &done;
  op.Enqueue(cl.queue(), buffers, options);
  ASSERT_EQ(clWaitForEvents(1, &done), CL_SUCCESS);
  clReleaseEvent(done);
  testing::ExpectSame(cl.Read(buffers[2], 64 * 48), c.want);
}

TEST(Runtime, ChannelBlockedSketchesGiveTheirLayoutsAndTheHelpersConvert) {
  ClEnvironment cl;
  ScratchDir dir;
  const auto any = [](const ConfigSpace&, const Config&) { return true; };
  testing::Record(Db(dir), testing::Parse(kConv), "conv2d_oc_vec",
                  testing::FindConfig(testing::Parse(kConv), "conv2d_oc_vec", cl.info(), any), cl.info());
  testing::Record(Db(dir), testing::Parse(kDepthwise), "depthwise_conv2d_nchwc",
                  testing::FindConfig(testing::Parse(kDepthwise), "depthwise_conv2d_nchwc", cl.info(), any), cl.info());
  const tensortune::Runtime runtime(cl.context(), cl.device());
  const auto history = tensortune::OpenHistory(Db(dir));

  const tensortune::Operator conv = runtime.Prepare(kConv, *history);
  EXPECT_EQ(conv.choice().kernel_template, "conv2d_oc_vec");
  EXPECT_EQ(conv.arguments()[0].layout, tensortune::Layout::kNCHW);
  EXPECT_EQ(conv.arguments()[1].layout, tensortune::Layout::kOIHW16o);
  EXPECT_EQ(conv.arguments()[1].dims, (std::vector<int64_t>{20, 5, 3, 3}));
  EXPECT_EQ(conv.arguments()[1].elements, 32u * 5 * 3 * 3);  // 20 channels padded to two blocks of 16
  ExpectCorrect(cl, conv, kConv);

  const tensortune::Operator dw = runtime.Prepare(kDepthwise, *history);
  EXPECT_EQ(dw.choice().kernel_template, "depthwise_conv2d_nchwc");
  for (const auto& a : dw.arguments())
    EXPECT_EQ(a.layout, a.name == "weight" ? tensortune::Layout::kOIHW16o : tensortune::Layout::kNCHW16c) << a.name;
  ExpectCorrect(cl, dw, kDepthwise);

  // The input converted on the device instead: NCHW -> NCHW16c, then the kernel, then back.
  const Case c = MakeCase(kDepthwise);
  const auto& in = dw.arguments()[0];
  const auto& out = dw.arguments()[2];
  const tensortune::Operator to_blocked =
      runtime.PrepareConversion(tensortune::Layout::kNCHW, tensortune::Layout::kNCHW16c, in.dims);
  const tensortune::Operator to_plain =
      runtime.PrepareConversion(tensortune::Layout::kNCHW16c, tensortune::Layout::kNCHW, out.dims);
  const cl_mem plain_in = cl.Buffer(c.inputs[0]), blocked_in = cl.Empty(in.elements),
               blocked_out = cl.Empty(out.elements);
  const cl_mem plain_out = cl.Empty(testing::Product(out.dims));
  to_blocked.Run(cl.queue(), {plain_in, blocked_in});
  dw.Run(cl.queue(), {blocked_in, cl.Buffer(tensortune::PackWeights(dw.arguments()[1], c.inputs[1])), blocked_out});
  to_plain.Run(cl.queue(), {blocked_out, plain_out});
  testing::ExpectSame(cl.Read(plain_out, testing::Product(out.dims)), c.want);
  EXPECT_EQ(
      CodeOf([&] { runtime.PrepareConversion(tensortune::Layout::kNCHW, tensortune::Layout::kOIHW16o, in.dims); }),
      ErrorCode::kInvalidArgument);
}

// The Winograd sketches on channel blocks: weights transformed by PackWeights from OIHW (the
// same code as the measurer's), activations NCHW16c; ToPlain recovers the OIHW weights. The
// input is transformed by a pre-pass into scratch memory, or in the kernel (fused_ci).
// A dense layer's weights in panels of 16 columns: N = 20 leaves a partial panel.
TEST(Runtime, ThePanelSketchReadsDenseWeightsThatPackWeightsMakes) {
  ClEnvironment cl;
  const tensortune::Runtime runtime(cl.context(), cl.device());
  const tensortune::Workload dense{"gemm", "3,20,24", {}};
  const std::string key = testing::FindConfig(testing::Parse(dense), "gemm_rows_panels", cl.info(),
                                              [](const ConfigSpace&, const Config&) { return true; });
  const tensortune::Operator op = runtime.PrepareConfig(dense, "gemm_rows_panels", key);
  const auto& weight = op.arguments()[1];
  EXPECT_EQ(weight.layout, tensortune::Layout::kKN16n);
  EXPECT_EQ(weight.dims, (std::vector<int64_t>{24, 20}));
  EXPECT_EQ(weight.elements, 24u * 32);
  EXPECT_EQ(op.arguments()[0].layout, tensortune::Layout::kRowMajor);
  ExpectCorrect(cl, op, dense);
  const std::vector<float> kn = testing::SmallIntegers(24 * 20, 5);
  EXPECT_EQ(tensortune::ToPlain(weight, tensortune::PackWeights(weight, kn)), kn);
}

TEST(Runtime, WinogradSketchesReadTransformedWeightsThatPackWeightsMakes) {
  ClEnvironment cl;
  const tensortune::Runtime runtime(cl.context(), cl.device());
  for (const char* sketch : {"conv2d_winograd_f2_nchwc", "conv2d_winograd_f4_nchwc"}) {
    for (const int64_t fused_ci : {0, 16}) {
      const auto with_fused = [fused_ci](const ConfigSpace& space, const Config& c) {
        return space.Scalar(c, "fused_ci") == fused_ci;
      };
      const std::string key = testing::FindConfig(testing::Parse(kConv), sketch, cl.info(), with_fused);
      const tensortune::Operator op = runtime.PrepareConfig(kConv, sketch, key);
      const auto& weight = op.arguments()[1];
      EXPECT_EQ(weight.layout, std::string(sketch).find("_f2_") != std::string::npos
                                   ? tensortune::Layout::kWinogradF2x2
                                   : tensortune::Layout::kWinogradF4x4);
      EXPECT_EQ(op.arguments()[0].layout, tensortune::Layout::kNCHW16c);
      EXPECT_EQ(op.scratch_bytes() > 0, fused_ci == 0) << key;  // the pre-pass's output
      ExpectCorrect(cl, op, kConv);
      if (fused_ci != 0) continue;  // the weights' layout does not depend on it
      const std::vector<float> oihw = testing::SmallIntegers(testing::Product(weight.dims), 5);
      EXPECT_EQ(tensortune::ToPlain(weight, tensortune::PackWeights(weight, oihw)), oihw);
      EXPECT_EQ(CodeOf([&] {
                  tensortune::ToLayout(oihw, weight.layout, {20, 5, 1, 1});
                }),
                ErrorCode::kInvalidArgument);  // Winograd weights are 3x3
    }
  }
}

TEST(Runtime, AMissingWorkloadIsAdaptedFromASimilarOneLabelledOrRefused) {
  ClEnvironment cl;
  ScratchDir dir;
  const tensortune::Workload recorded{"gemm", "32,32,32", {}};
  testing::Record(
      Db(dir), testing::Parse(recorded), "gemm_tiled",
      "tile_x=[2,4,2,2];tile_y=[2,2,2,4];tile_k=[1,16,2];auto_unroll_max_step=16;vec=4;local_a=1;local_b=0;pack_b=0",
      cl.info());
  const tensortune::Runtime runtime(cl.context(), cl.device());
  const auto history = tensortune::OpenHistory(Db(dir));

  const tensortune::Workload missing{"gemm", "48,32,32", {}};
  const tensortune::Operator op = runtime.Prepare(missing, *history);
  EXPECT_EQ(op.choice().origin, Origin::kSimilarWorkload);
  EXPECT_EQ(op.choice().source_workload, "gemm:m=32,n=32,k=32");
  EXPECT_GT(op.choice().match_score, 0.5);
  EXPECT_EQ(op.choice().recorded_time_s, 0);  // no estimate for a fallback
  EXPECT_NE(op.choice().note.find("adapted from gemm:m=32,n=32,k=32"), std::string::npos) << op.choice().note;
  ExpectCorrect(cl, op, missing);
  EXPECT_EQ(CodeOf([&] { runtime.Prepare(missing, *history, Strict(Origin::kExact)); }), ErrorCode::kMissingWorkload);

  // An operator the history never saw: the device's starting config of its first sketch (what
  // tune-network's first round measures), labelled, still right; the untuned config only when
  // asked for.
  const tensortune::Operator conv = runtime.Prepare(kConv, *history);
  EXPECT_EQ(conv.choice().origin, Origin::kDefault);
  EXPECT_NE(conv.choice().note.find("nothing in"), std::string::npos) << conv.choice().note;
  EXPECT_NE(conv.choice().note.find("starting config"), std::string::npos) << conv.choice().note;
  ExpectCorrect(cl, conv, kConv);
  const tensortune::Operator untuned = runtime.PrepareDefault(kConv, conv.choice().kernel_template);
  EXPECT_NE(untuned.choice().note.find("untuned"), std::string::npos) << untuned.choice().note;
  const tt::Workload conv_workload = runtime::ToWorkload(kConv);
  const tt::KernelTemplate& sketch = tt::PickTemplate(conv_workload, conv.choice().kernel_template);
  const tt::ConfigSpace space = sketch.Space(conv_workload, tt::LimitsOf(cl.info()));
  const auto start = tt::DeviceStartingConfig(sketch, space, cl.info());
  ASSERT_TRUE(start.has_value());
  EXPECT_TRUE(start->tiles_known) << conv.choice().kernel_template;
  EXPECT_EQ(conv.choice().config_key, space.Key(start->config));
  EXPECT_NE(untuned.choice().config_key, conv.choice().config_key);
  EXPECT_EQ(CodeOf([&] { runtime.Prepare(kConv, *history, Strict(Origin::kOtherDevice)); }),
            ErrorCode::kMissingWorkload);
}

TEST(Runtime, AnUnknownDeviceTakesOtherDevicesRecordsLabelledOrIsRefused) {
  ClEnvironment cl;
  ScratchDir dir;
  DeviceInfo gpu;
  gpu.platform = "Some Vendor OpenCL";
  gpu.name = "some-gpu";
  gpu.driver_version = "1.0";
  gpu.type = "gpu";
  gpu.max_work_group_size = 1024;
  gpu.local_mem_bytes = 65536;
  const Workload w = testing::Parse(kGemm);
  DeviceInfo both = cl.info();  // a config valid on either device
  both.max_work_group_size = std::min(both.max_work_group_size, gpu.max_work_group_size);
  both.local_mem_bytes = std::min(both.local_mem_bytes, gpu.local_mem_bytes);
  const std::string key = testing::FindConfig(w, "gemm_tiled", both, [](const ConfigSpace& s, const Config& c) {
    return s.Scalar(c, "vec") <= 4 && s.Value(c, "tile_x")[2] * s.Value(c, "tile_y")[2] > 1;
  });
  testing::Record(Db(dir), w, "gemm_tiled", key, gpu);
  const tensortune::Runtime runtime(cl.context(), cl.device());
  const auto history = tensortune::OpenHistory(Db(dir));

  const tensortune::Operator op = runtime.Prepare(kGemm, *history);
  EXPECT_EQ(op.choice().origin, Origin::kOtherDevice);
  EXPECT_EQ(op.choice().source_device, "some-gpu");
  EXPECT_EQ(op.choice().config_key, key);
  EXPECT_NE(op.choice().note.find("recorded on some-gpu"), std::string::npos) << op.choice().note;
  ExpectCorrect(cl, op, kGemm);
  EXPECT_EQ(CodeOf([&] { runtime.Prepare(kGemm, *history, Strict(Origin::kSimilarWorkload)); }),
            ErrorCode::kUnknownDevice);

  // A config that does not fit this device is passed over (to the default), never run.
  DeviceInfo described = cl.info();
  described.max_work_group_size = 1;  // as if this device allowed single work-items only
  const tensortune::KernelSpec spec = tensortune::Choose(kGemm, *history, runtime::ToDescription(described));
  EXPECT_EQ(spec.choice.origin, Origin::kDefault);
  EXPECT_NE(spec.choice.note.find("passed over"), std::string::npos) << spec.choice.note;
}

TEST(Runtime, OverridesAreCheckedAgainstTheDevice) {
  ClEnvironment cl;
  const tensortune::Runtime runtime(cl.context(), cl.device());
  const Workload w = testing::Parse(kGemm);
  const std::string key =
      testing::FindConfig(w, "gemm_tiled", cl.info(), [](const ConfigSpace&, const Config&) { return true; });
  const tensortune::Operator op = runtime.PrepareConfig(kGemm, "gemm_tiled", key);
  EXPECT_EQ(op.choice().origin, Origin::kOverride);
  ExpectCorrect(cl, op, kGemm);
  EXPECT_EQ(CodeOf([&] { runtime.PrepareConfig(kGemm, "gemm_tiled", "tile_x=[1,1,1,64];vec=3"); }),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([&] { runtime.PrepareConfig(kGemm, "conv2d_oc_vec", key); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([&] { runtime.PrepareDefault({"gemm", "64,48", {}}); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([&] { runtime.PrepareDefault({"nonsense", "1", {}}); }), ErrorCode::kInvalidArgument);
}

TEST(Runtime, BuffersThatDoNotMatchTheArgumentsAreRefused) {
  ClEnvironment cl;
  const tensortune::Runtime runtime(cl.context(), cl.device());
  const tensortune::Operator op = runtime.PrepareDefault(kGemm);
  const cl_mem a = cl.Empty(64 * 40), b = cl.Empty(40 * 48), c = cl.Empty(64 * 48), small = cl.Empty(10);
  EXPECT_EQ(CodeOf([&] { op.Run(cl.queue(), {a, b}); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([&] { op.Run(cl.queue(), {a, small, c}); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([&] { op.Run(cl.queue(), {a, nullptr, c}); }), ErrorCode::kInvalidArgument);
  ClEnvironment other;  // a queue of another context
  EXPECT_EQ(CodeOf([&] { op.Run(other.queue(), {a, b, c}); }), ErrorCode::kInvalidArgument);
  op.Run(cl.queue(), {a, b, c});
  EXPECT_EQ(CodeOf([&] { tensortune::Operator().Run(cl.queue(), {a, b, c}); }), ErrorCode::kInvalidArgument);
}

TEST(Runtime, AMissingOrForeignDatabaseIsAClearErrorAndNothingIsCreated) {
  ScratchDir dir;
  const auto path = dir.path() / "absent.db";
  EXPECT_EQ(CodeOf([&] { tensortune::OpenHistory(path.string()); }), ErrorCode::kDatabase);
  EXPECT_FALSE(std::filesystem::exists(path));
  std::ofstream(dir.path() / "text.db") << "not a database";
  EXPECT_EQ(CodeOf([&] { tensortune::OpenHistory((dir.path() / "text.db").string()); }), ErrorCode::kDatabase);
}

// A pack of kGemm (pack_b) and kConv (oc_vec) exported from a history of this device.
std::string WriteTestPack(ClEnvironment& cl, const ScratchDir& dir, const tensortune::DeviceDescription& device,
                          const std::string& name = "pack") {
  const Workload gemm = testing::Parse(kGemm), conv = testing::Parse(kConv);
  testing::Record(Db(dir), gemm, "gemm_tiled",
                  testing::FindConfig(gemm, "gemm_tiled", cl.info(),
                                      [](const ConfigSpace& s, const Config& c) { return s.Scalar(c, "pack_b") == 1; }),
                  cl.info());
  testing::Record(
      Db(dir), conv, "conv2d_oc_vec",
      testing::FindConfig(conv, "conv2d_oc_vec", cl.info(), [](const ConfigSpace&, const Config&) { return true; }),
      cl.info());
  const auto history = tensortune::OpenHistory(Db(dir));
  const auto self = runtime::ToDescription(cl.info());
  std::vector<runtime::PackTask> tasks{{tensortune::Choose(kGemm, *history, self), {"fc"}, 1},
                                       {tensortune::Choose(kConv, *history, self), {"conv"}, 2}};
  const std::string out = (dir.path() / name).string();
  runtime::WritePack(out, device, "test", 1, tasks);
  return out;
}

TEST(KernelPack, RunsWithoutTheDatabaseAndGivesTheSameOutputs) {
  ClEnvironment cl;
  ScratchDir dir;
  const std::string pack_dir = WriteTestPack(cl, dir, runtime::ToDescription(cl.info()));
  const tensortune::Runtime runtime(cl.context(), cl.device());
  std::vector<std::vector<float>> from_history;
  {
    const auto history = tensortune::OpenHistory(Db(dir));
    for (const auto& w : {kGemm, kConv})
      from_history.push_back(RunPlain(cl, runtime.Prepare(w, *history), MakeCase(w).inputs));
  }
  std::filesystem::remove(Db(dir));

  const tensortune::KernelPack pack = tensortune::KernelPack::Load(pack_dir);
  EXPECT_EQ(pack.kernels().size(), 2u);
  EXPECT_EQ(pack.network(), "test");
  size_t i = 0;
  for (const auto& w : {kGemm, kConv}) {
    const tensortune::Operator op = runtime.Prepare(w, pack);
    EXPECT_EQ(op.choice().origin, Origin::kExact);
    EXPECT_NE(op.choice().note.find("kernel pack"), std::string::npos) << op.choice().note;
    const std::vector<float> got = RunPlain(cl, op, MakeCase(w).inputs);
    EXPECT_EQ(got, from_history[i++]) << "bit for bit";
    testing::ExpectSame(got, MakeCase(w).want);
  }
  EXPECT_EQ(runtime.cache_stats().built, 2u) << "the pack's kernels are the history's: built once";

  // The pack holds what a program needs to launch the kernels itself.
  const tensortune::KernelSpec& gemm = *pack.Find(tensortune::WorkloadKey(kGemm));
  EXPECT_NE(gemm.build_options.find("-D PACK_B=1"), std::string::npos);
  EXPECT_EQ(gemm.launches.front().args, (std::vector<int>{1, tensortune::kScratchArgument}));
  EXPECT_NE(testing::ReadFile(std::filesystem::path(pack_dir) / "manifest.json").find("\"layout\": \"OIHW16o\""),
            std::string::npos);
}

TEST(KernelPack, AWorkloadThePackLacksIsAdaptedLabelledOrRefused) {
  ClEnvironment cl;
  ScratchDir dir;
  const tensortune::KernelPack pack =
      tensortune::KernelPack::Load(WriteTestPack(cl, dir, runtime::ToDescription(cl.info())));
  const tensortune::Runtime runtime(cl.context(), cl.device());
  const tensortune::Workload other{"gemm", "64,48,80", {}};
  const tensortune::Operator op = runtime.Prepare(other, pack);
  EXPECT_EQ(op.choice().origin, Origin::kSimilarWorkload);
  EXPECT_EQ(op.choice().source_workload, tensortune::WorkloadKey(kGemm));
  EXPECT_NE(op.choice().note.find("is not in kernel pack"), std::string::npos) << op.choice().note;
  ExpectCorrect(cl, op, other);
  EXPECT_EQ(CodeOf([&] { runtime.Prepare(other, pack, Strict(Origin::kExact)); }), ErrorCode::kMissingWorkload);
  const tensortune::Operator dw = runtime.Prepare(kDepthwise, pack);  // no depthwise kernel in it
  EXPECT_EQ(dw.choice().origin, Origin::kDefault);
  ExpectCorrect(cl, dw, kDepthwise);
}

TEST(KernelPack, APackFromAnotherDeviceIsCheckedAndLabelledOrRefused) {
  ClEnvironment cl;
  ScratchDir dir;
  tensortune::DeviceDescription elsewhere = runtime::ToDescription(cl.info());
  elsewhere.name = "a-different-device";
  const tensortune::KernelPack pack = tensortune::KernelPack::Load(WriteTestPack(cl, dir, elsewhere));
  const tensortune::Runtime runtime(cl.context(), cl.device());
  const tensortune::Operator op = runtime.Prepare(kConv, pack);
  EXPECT_EQ(op.choice().origin, Origin::kOtherDevice);
  EXPECT_NE(op.choice().note.find("was exported for 'a-different-device'"), std::string::npos) << op.choice().note;
  ExpectCorrect(cl, op, kConv);
  const auto refused = [&] { runtime.Prepare(kConv, pack, Strict(Origin::kSimilarWorkload)); };
  EXPECT_EQ(CodeOf(refused), ErrorCode::kWrongDevice);
  try {
    refused();
  } catch (const tensortune::Error& e) {
    EXPECT_NE(std::string(e.what()).find("export a pack for this device"), std::string::npos) << e.what();
  }
}

TEST(KernelPack, ADamagedPackIsRefused) {
  ClEnvironment cl;
  ScratchDir dir;
  const auto self = runtime::ToDescription(cl.info());
  namespace fs = std::filesystem;
  const auto load = [](const std::string& d) { return CodeOf([&] { tensortune::KernelPack::Load(d); }); };
  const std::string original = WriteTestPack(cl, dir, self);
  const auto fresh = [&](const std::string& name) {
    const std::string d = (dir.path() / name).string();
    fs::copy(original, d, fs::copy_options::recursive);
    return d;
  };
  const auto edit = [](const fs::path& file, const std::string& from, const std::string& to) {
    std::string text = testing::ReadFile(file);
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  };

  EXPECT_EQ(load((dir.path() / "nowhere").string()), ErrorCode::kDamagedPack);
  {
    const std::string d = fresh("truncated");
    const std::string text = testing::ReadFile(fs::path(d) / "manifest.json");
    std::ofstream(fs::path(d) / "manifest.json", std::ios::trunc) << text.substr(0, text.size() / 2);
    EXPECT_EQ(load(d), ErrorCode::kDamagedPack);
  }
  {
    const std::string d = fresh("options");
    edit(fs::path(d) / "manifest.json", "-D PACK_B=1", "-D PACK_B=0");
    EXPECT_EQ(load(d), ErrorCode::kDamagedPack);
  }
  {
    const std::string d = fresh("source");
    for (const auto& f : fs::directory_iterator(fs::path(d) / "kernels"))
      if (f.path().string().find("gemm") != std::string::npos) edit(f.path(), "__kernel", "__kernel ");
    EXPECT_EQ(load(d), ErrorCode::kDamagedPack);
  }
  {
    const std::string d = fresh("missing");
    fs::remove_all(fs::path(d) / "kernels");
    EXPECT_EQ(load(d), ErrorCode::kDamagedPack);
  }
  {
    const std::string d = fresh("newer");
    edit(fs::path(d) / "manifest.json", "\"version\": 1", "\"version\": 9");
    try {
      tensortune::KernelPack::Load(d);
      ADD_FAILURE();
    } catch (const tensortune::Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kDamagedPack);
      EXPECT_NE(std::string(e.what()).find("newer tensortune"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(tensortune::KernelPack::Load(fresh("intact")));

  // A manifest with a valid checksum whose kernel contradicts its config (not written by
  // export-kernels): refused when the workload is prepared, not run.
  const auto history = tensortune::OpenHistory(Db(dir));
  tensortune::KernelSpec spec = tensortune::Choose(kGemm, *history, self);
  const size_t at = spec.build_options.find("-D TRANS_B=0");
  ASSERT_NE(at, std::string::npos);
  spec.build_options.replace(at, 12, "-D TRANS_B=1");
  const std::string forged = (dir.path() / "forged").string();
  runtime::WritePack(forged, self, "test", 1, {{spec, {"fc"}, 1}});
  const tensortune::KernelPack pack = tensortune::KernelPack::Load(forged);
  const tensortune::Runtime runtime(cl.context(), cl.device());
  EXPECT_EQ(CodeOf([&] { runtime.Prepare(kGemm, pack); }), ErrorCode::kDamagedPack);
}

TEST(Runtime, ThreadsShareOneRuntimeAndItsPrograms) {
  ClEnvironment cl;
  ScratchDir dir;
  const Workload w = testing::Parse(kGemm);
  testing::Record(Db(dir), w, "gemm_tiled",
                  testing::FindConfig(w, "gemm_tiled", cl.info(),
                                      [](const ConfigSpace& s, const Config& c) { return s.Scalar(c, "pack_b") == 1; }),
                  cl.info());
  const tensortune::Runtime runtime(cl.context(), cl.device());
  const auto history = tensortune::OpenHistory(Db(dir));
  const Case c = MakeCase(kGemm);
  std::vector<cl_command_queue> queues;
  for (int t = 0; t < 4; ++t) queues.push_back(cl.NewQueue());
  std::vector<std::vector<cl_mem>> buffers;
  for (int t = 0; t < 4; ++t) buffers.push_back({cl.Buffer(c.inputs[0]), cl.Buffer(c.inputs[1]), cl.Empty(64 * 48)});
  std::atomic<int> wrong{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      try {
        const tensortune::Operator op = runtime.Prepare(kGemm, *history);  // each thread prepares; one build
        for (int i = 0; i < 5; ++i) {
          op.Run(queues[t], buffers[t]);
          const auto got = cl.Read(buffers[t][2], 64 * 48, queues[t]);
          for (size_t k = 0; k < got.size(); ++k)
            if (std::fabs(got[k] - c.want[k]) > 1e-3f) {
              ++wrong;
              break;
            }
        }
      } catch (const std::exception&) {
        ++errors;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(runtime.cache_stats().built, 1u);
  EXPECT_EQ(runtime.cache_stats().reused, 3u);
}

TEST(Runtime, ProgramBinariesOnDiskSkipTheCompilerAndABadOneIsRebuilt) {
  ClEnvironment cl;
  ScratchDir dir;
  tensortune::RuntimeOptions options;
  options.binary_cache = (dir.path() / "binaries").string();
  {
    const tensortune::Runtime first(cl.context(), cl.device(), options);
    ExpectCorrect(cl, first.PrepareDefault(kConv), kConv);
    EXPECT_EQ(first.cache_stats().built, 1u);
  }
  {
    const tensortune::Runtime second(cl.context(), cl.device(), options);
    ExpectCorrect(cl, second.PrepareDefault(kConv), kConv);
    EXPECT_EQ(second.cache_stats().built, 0u);
    EXPECT_EQ(second.cache_stats().loaded_from_disk, 1u);
  }
  for (const auto& f : std::filesystem::directory_iterator(options.binary_cache)) {
    std::string text = testing::ReadFile(f.path());
    text[text.size() / 2] ^= 0x55;
    std::ofstream(f.path(), std::ios::binary | std::ios::trunc) << text;
  }
  const tensortune::Runtime third(cl.context(), cl.device(), options);
  ExpectCorrect(cl, third.PrepareDefault(kConv), kConv);
  EXPECT_EQ(third.cache_stats().built, 1u) << "a damaged binary is never loaded";
}

}  // namespace
}  // namespace tt
