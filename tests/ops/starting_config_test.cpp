// Every sketch has a valid starting config on a CPU and on a GPU, on small and odd shapes; on
// a CPU it is vectorised as wide as the device and tiled, not the untiled default.
#include "ops/starting_config.h"

#include <gtest/gtest.h>

namespace tt {
namespace {

DeviceInfo Device(const std::string& type, unsigned width) {
  DeviceInfo d;
  d.name = type;
  d.type = type;
  d.compute_units = 2;
  d.native_float_width = width;
  d.max_work_group_size = type == "cpu" ? 4096 : 1024;
  d.local_mem_bytes = type == "cpu" ? 1 << 20 : 48 << 10;
  return d;
}

DeviceLimits LimitsFor(const DeviceInfo& d) { return {d.max_work_group_size, d.local_mem_bytes, d.native_float_width}; }

// The values of `knobs` in sketch `name`'s starting config for conv2d `shape` on `device`
// ("tiles=4 work_group=1"), checked valid; "none" without one.
std::string StartingValues(const char* name, const char* shape, const DeviceInfo& device,
                           const std::vector<const char*>& knobs, bool with_workload = true) {
  const Workload w = ParseWorkload("conv2d", shape);
  const KernelTemplate& sketch = PickTemplate(w, name);
  const ConfigSpace space = sketch.Space(w, LimitsFor(device));
  const auto start = DeviceStartingConfig(sketch, space, device, with_workload ? &w : nullptr);
  EXPECT_TRUE(start && space.IsValid(start->config)) << name << " " << shape;
  if (!start) return "none";
  std::string values;
  for (const char* knob : knobs)
    values += (values.empty() ? "" : " ") + std::string(knob) + "=" + std::to_string(space.Scalar(start->config, knob));
  return values;
}

// Sketch `name`'s config `key` for conv2d `shape` after FitToTheShape on `device`, checked valid.
std::string FittedKey(const char* name, const char* shape, const char* key, const DeviceInfo& device) {
  const Workload w = ParseWorkload("conv2d", shape);
  const KernelTemplate& sketch = PickTemplate(w, name);
  const ConfigSpace space = sketch.Space(w, LimitsFor(device));
  Config c = *space.FromKey(key);
  sketch.FitToTheShape(w, space, device, c);
  EXPECT_TRUE(space.IsValid(c)) << key;
  return space.Key(c);
}

TEST(StartingConfig, EverySketchHasAValidOneOnEveryDeviceClass) {
  const std::vector<Workload> workloads = {
      ParseWorkload("gemm", "1,1000,512"),
      ParseWorkload("gemm", "49,512,4608"),
      ParseWorkload("gemm", "1021,517,300"),
      ParseWorkload("batch_matmul", "4,64,64,32"),
      ParseWorkload("conv2d", "n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1"),
      ParseWorkload("conv2d", "n=1,ci=3,h=224,w=224,co=64,kh=7,kw=7,stride=2,pad=3"),
      ParseWorkload("conv2d", "n=1,ci=57,h=14,w=14,co=117,kh=1,kw=1,stride=1,pad=0"),
      ParseWorkload("depthwise_conv2d", "n=1,c=32,h=112,w=112,kh=3,kw=3,stride=1,pad=1"),
  };
  for (const DeviceInfo& device : {Device("cpu", 16), Device("cpu", 8), Device("cpu", 0), Device("gpu", 1)}) {
    for (const Workload& w : workloads) {
      for (const KernelTemplate* kernel : ApplicableTemplates(w)) {
        const ConfigSpace space = kernel->Space(w, LimitsFor(device));
        const auto start = DeviceStartingConfig(*kernel, space, device);
        ASSERT_TRUE(start) << kernel->name() << " " << w.Key();
        EXPECT_TRUE(space.IsValid(start->config)) << kernel->name() << " " << w.Key() << " " << device.type;
        EXPECT_FALSE(start->note.empty());
      }
    }
  }
}

TEST(StartingConfig, OnACpuItIsAsWideAsTheDeviceAndTiled) {
  const Workload conv = ParseWorkload("conv2d", "n=1,ci=128,h=28,w=28,co=128,kh=3,kw=3,stride=1,pad=1");
  const DeviceInfo cpu = Device("cpu", 16);
  const KernelTemplate& oc_vec = PickTemplate(conv, "conv2d_oc_vec");
  const ConfigSpace space = oc_vec.Space(conv, LimitsFor(cpu));
  const auto start = DeviceStartingConfig(oc_vec, space, cpu);
  ASSERT_TRUE(start);
  EXPECT_EQ(space.Scalar(start->config, "vec"), 16);
  EXPECT_EQ(space.Scalar(start->config, "tile_oc"), 4);
  EXPECT_NE(space.Key(start->config), space.Key(UntiledConfig(space)));
  EXPECT_EQ(start->note, "cpu start (vector width 16)");

  // 40 output channels hold three vectors of 16 at most: the largest tile_oc under 4 that fits.
  const Workload few = ParseWorkload("conv2d", "n=1,ci=16,h=28,w=28,co=40,kh=3,kw=3,stride=1,pad=1");
  const ConfigSpace few_space = oc_vec.Space(few, LimitsFor(cpu));
  const auto few_start = DeviceStartingConfig(oc_vec, few_space, cpu);
  ASSERT_TRUE(few_start);
  EXPECT_EQ(few_space.Scalar(few_start->config, "tile_oc"), 3);
  // 24 hold two.
  const Workload fewer = ParseWorkload("conv2d", "n=1,ci=16,h=28,w=28,co=24,kh=3,kw=3,stride=1,pad=1");
  const ConfigSpace fewer_space = oc_vec.Space(fewer, LimitsFor(cpu));
  const auto fewer_start = DeviceStartingConfig(oc_vec, fewer_space, cpu);
  ASSERT_TRUE(fewer_start);
  EXPECT_EQ(fewer_space.Scalar(fewer_start->config, "tile_oc"), 2);
  EXPECT_EQ(few_space.Scalar(few_start->config, "vec"), 16);

  const DeviceInfo avx2 = Device("cpu", 8);
  const ConfigSpace narrow = oc_vec.Space(conv, LimitsFor(avx2));
  EXPECT_EQ(narrow.Scalar(DeviceStartingConfig(oc_vec, narrow, avx2)->config, "vec"), 8);

  const Workload gemm = ParseWorkload("gemm", "256,256,256");
  const KernelTemplate& tiled = PickTemplate(gemm, "gemm_tiled");
  const ConfigSpace gemm_space = tiled.Space(gemm, LimitsFor(cpu));
  const auto gemm_start = DeviceStartingConfig(tiled, gemm_space, cpu);
  ASSERT_TRUE(gemm_start);
  EXPECT_EQ(gemm_space.Value(gemm_start->config, "tile_y"), (KnobValue{8, 4, 1, 8}));
}

// gemm_rows: eight vectors of columns per work-item where they divide N, else the most that do
// and make at least 32 columns; where none do, the fewest that make 32 (a work-item past N
// loads its columns one by one). Unroll 16, groups of one.
TEST(StartingConfig, GemmRowsColumnsPerWorkItemFitTheColumns) {
  const KernelTemplate& rows = *FindTemplate("gemm_rows");
  const auto start = [&](const char* shape, const DeviceInfo& device) {
    const Workload w = ParseWorkload("gemm", shape);
    const ConfigSpace space = rows.Space(w, LimitsFor(device));
    const auto s = DeviceStartingConfig(rows, space, device, &w);
    EXPECT_TRUE(s && space.IsValid(s->config)) << shape;
    return s ? space.Key(s->config) : std::string();
  };
  EXPECT_EQ(start("1,4096,4096", Device("cpu", 16)), "vec=16;nv=8;unroll_k=16;work_group=1");
  EXPECT_EQ(start("1,4096,25088", Device("cpu", 16)), "vec=16;nv=8;unroll_k=16;work_group=1");
  EXPECT_EQ(start("4,1000,4096", Device("cpu", 16)), "vec=16;nv=2;unroll_k=16;work_group=1");  // 1000 = 62.5 x 16
  EXPECT_EQ(start("1,1000,4096", Device("cpu", 8)), "vec=8;nv=4;unroll_k=16;work_group=1");    // not 125 x 8
  EXPECT_EQ(start("1,4000,4096", Device("cpu", 16)), "vec=16;nv=2;unroll_k=16;work_group=1");  // 4000 = 125 x 32
  EXPECT_EQ(start("1,4000,4096", Device("cpu", 8)), "vec=8;nv=4;unroll_k=16;work_group=1");
  EXPECT_EQ(start("1,4032,4096", Device("cpu", 16)), "vec=16;nv=4;unroll_k=16;work_group=1");  // 63 x 64
  EXPECT_EQ(start("1,1000,4096", Device("gpu", 4)), "vec=4;nv=1;unroll_k=4;work_group=64");
  // Eight rows take at most four vectors each (32 accumulators): the start stays inside the space.
  EXPECT_EQ(start("8,4096,4096", Device("cpu", 16)), "vec=16;nv=4;unroll_k=16;work_group=1");
  // 64 columns: one work-item of four vectors, in a group of one (not the generic four per group).
  EXPECT_EQ(start("8,64,32", Device("cpu", 16)), "vec=16;nv=4;unroll_k=16;work_group=1");
}

// Where the shape rejects some preferred values, the register tiles take precedence over the
// work-group size: once F(4x4) on a 7x7 image started at one tile per work-item in groups of four
// (2.9 ms against 1.0 for F(2x2)'s start on ResNet-18's 512-channel layer; a start that slow also
// made the search pass F(4x4) by on the network's other layers). F(2x2) on a 6x12 image has 18
// tiles: six per work-item leave three work-items, which a group of four does not fit.
TEST(StartingConfig, RegisterTilesComeBeforeTheWorkGroupSize) {
  EXPECT_EQ(StartingValues("conv2d_winograd_f2_nchwc", "n=1,ci=64,h=6,w=12,co=64,kh=3,kw=3,stride=1,pad=1",
                           Device("cpu", 16), {"tiles", "work_group"}),
            "tiles=6 work_group=2");
  EXPECT_EQ(StartingValues("conv2d_winograd_f4_nchwc", "n=1,ci=512,h=7,w=7,co=512,kh=3,kw=3,stride=1,pad=1",
                           Device("cpu", 16), {"tiles", "work_group"}),
            "tiles=4 work_group=1");
}

// An image of at most sixteen tiles goes to one work-item whole, with as many vectors of output
// channels as keep sixteen sums in registers while each of the two compute units gets a group;
// a larger image keeps the table's six tiles by two vectors, and a GPU its generic start.
TEST(StartingConfig, WinogradTakesASmallImageWhole) {
  const auto tiles = [](const char* name, const char* shape, const DeviceInfo& device) {
    return StartingValues(name, shape, device, {"tiles", "tile_oc", "work_group"});
  };
  const DeviceInfo cpu = Device("cpu", 16);
  const char* seven = "n=1,ci=512,h=7,w=7,co=512,kh=3,kw=3,stride=1,pad=1";
  const char* fourteen = "n=1,ci=256,h=14,w=14,co=256,kh=3,kw=3,stride=1,pad=1";
  EXPECT_EQ(tiles("conv2d_winograd_f4_nchwc", seven, cpu), "tiles=4 tile_oc=4 work_group=1");
  EXPECT_EQ(tiles("conv2d_winograd_f2_nchwc", seven, cpu), "tiles=16 tile_oc=2 work_group=1");
  EXPECT_EQ(tiles("conv2d_winograd_f4_nchwc", fourteen, cpu), "tiles=16 tile_oc=2 work_group=1");
  EXPECT_EQ(tiles("conv2d_winograd_f2_nchwc", fourteen, cpu), "tiles=6 tile_oc=2 work_group=4");  // 49 tiles
  // 64 output channels: four vectors would leave one compute unit idle.
  EXPECT_EQ(tiles("conv2d_winograd_f4_nchwc", "n=1,ci=64,h=7,w=7,co=64,kh=3,kw=3,stride=1,pad=1", cpu),
            "tiles=4 tile_oc=2 work_group=1");
  EXPECT_EQ(tiles("conv2d_winograd_f4_nchwc", "n=1,ci=64,h=7,w=7,co=16,kh=3,kw=3,stride=1,pad=1", cpu),
            "tiles=4 tile_oc=1 work_group=1");
  EXPECT_EQ(tiles("conv2d_winograd_f2_nchwc", seven, Device("gpu", 4)), "tiles=1 tile_oc=1 work_group=16");
  // A config transferred with the input transformed in the kernel takes the pre-pass instead:
  // each group of output channels would transform the whole image again.
  const Workload w = ParseWorkload("conv2d", seven);
  const KernelTemplate& f4 = PickTemplate(w, "conv2d_winograd_f4_nchwc");
  const ConfigSpace space = f4.Space(w, LimitsFor(cpu));
  Config transferred = *space.FromKey("vec=16;tile_oc=2;tiles=4;work_group=1;unroll_ci=4;fused_ci=32");
  EXPECT_NE(f4.FitToTheShape(w, space, cpu, transferred), "");
  EXPECT_EQ(space.Key(transferred), "vec=16;tile_oc=4;tiles=4;work_group=1;unroll_ci=4;fused_ci=0");
}

// A 7x7 output in 2x2 blocks computes 64 pixels for 49: the direct sketches' start takes one
// row of 7 instead (as many pixels per work-item or more, none past the output), in a group of
// one, and two vectors of output channels (four by seven accumulators and four weight vectors
// would pass the 32 registers), the kx loop of a 3x3 kernel unrolled again once they fit.
TEST(StartingConfig, PixelBlocksFitASmallOutput) {
  const auto pixels = [](const char* name, const char* shape) {
    return StartingValues(name, shape, Device("cpu", 16), {"tile_oc", "tile_oh", "tile_ow", "work_group", "unroll_kw"});
  };
  const char* projection = "n=1,ci=256,h=14,w=14,co=512,kh=1,kw=1,stride=2,pad=0";
  EXPECT_EQ(pixels("conv2d_oc_vec_nchwc", projection), "tile_oc=2 tile_oh=1 tile_ow=7 work_group=1 unroll_kw=1");
  EXPECT_EQ(pixels("conv2d_oc_vec", "n=1,ci=256,h=14,w=14,co=512,kh=3,kw=3,stride=2,pad=1"),
            "tile_oc=2 tile_oh=1 tile_ow=7 work_group=1 unroll_kw=1");
  // A padded output row of 14 (FitRowBlock): one block of one vector, kx unrolled, in the
  // blocked sketch with its pre-pass; the NCHW sketch and the unpadded projection keep 2x2.
  const char* layer3 = "n=1,ci=128,h=28,w=28,co=256,kh=3,kw=3,stride=2,pad=1";
  EXPECT_EQ(pixels("conv2d_oc_vec_nchwc", layer3), "tile_oc=1 tile_oh=1 tile_ow=14 work_group=1 unroll_kw=1");
  EXPECT_EQ(pixels("conv2d_oc_vec", layer3), "tile_oc=4 tile_oh=2 tile_ow=2 work_group=4 unroll_kw=1");
  EXPECT_EQ(pixels("conv2d_oc_vec_nchwc", "n=1,ci=128,h=28,w=28,co=256,kh=1,kw=1,stride=2,pad=0"),
            "tile_oc=4 tile_oh=2 tile_ow=2 work_group=4 unroll_kw=1");
  // A row of 28 stays in 2x2 blocks, kx rolled in the pre-pass's frame: unrolled, 16
  // accumulators, 12 weight vectors and 2 x 5 held input values pass the register file.
  EXPECT_EQ(pixels("conv2d_oc_vec_nchwc", "n=1,ci=64,h=56,w=56,co=128,kh=3,kw=3,stride=2,pad=1"),
            "tile_oc=4 tile_oh=2 tile_ow=2 work_group=4 unroll_kw=0");
}

// A stem of 48 output channels starts with three vectors (two would compute 64 channels), its
// 7x7 taps rolled: three by 2x2 with 21 unrolled weight vectors pass the register file. Where a
// register or row fit gives vectors up, it halves them (three would compute 528 of 512 channels).
TEST(StartingConfig, ThreeVectorsWhereFourPassTheChannels) {
  const auto start = [](const char* shape) {
    return StartingValues("conv2d_oc_vec_nchwc", shape, Device("cpu", 16),
                          {"tile_oc", "tile_oh", "tile_ow", "work_group", "unroll_kw"});
  };
  EXPECT_EQ(start("n=1,ci=3,h=224,w=224,co=48,kh=7,kw=7,stride=2,pad=3"),
            "tile_oc=3 tile_oh=2 tile_ow=2 work_group=4 unroll_kw=0");
  EXPECT_EQ(start("n=1,ci=3,h=224,w=224,co=64,kh=7,kw=7,stride=2,pad=3"),
            "tile_oc=4 tile_oh=2 tile_ow=2 work_group=4 unroll_kw=0");
  EXPECT_EQ(start("n=1,ci=512,h=7,w=7,co=1024,kh=1,kw=1,stride=1,pad=0"),
            "tile_oc=2 tile_oh=1 tile_ow=7 work_group=1 unroll_kw=1");
}

// A transferred config whose accumulators, unrolled weight vectors and broadcast value pass the
// register file is fitted to it: the kx loop rolled first, with the pre-pass, then vectors of
// output channels given up; one that fits stays as it is, and a GPU's configs are left alone.
// One block per row of a padded output: the kx loop unrolled where it fits the registers (the
// kernel then drops the taps that read padding); not past the registers, not with several
// blocks per row, not without padding. The blocked sketch's narrow padded rows come out the
// same way through FitRowBlock.
TEST(StartingConfig, OneBlockPerRowUnrollsTheKernelWidth) {
  const DeviceInfo cpu = Device("cpu", 16);
  const auto fit = [&](const char* name, const char* shape, const char* key) {
    return FittedKey(name, shape, key, cpu);
  };
  const char* to7 = "n=1,ci=256,h=14,w=14,co=512,kh=3,kw=3,stride=2,pad=1";
  EXPECT_EQ(fit("conv2d_oc_vec", to7, "vec=16;tile_oc=2;tile_oh=1;tile_ow=7;work_group=1;unroll_kw=0"),
            "vec=16;tile_oc=2;tile_oh=1;tile_ow=7;work_group=1;unroll_kw=1");
  // Four vectors by a row of 7 give up two (FitRegisterFile), then unroll (21 live).
  EXPECT_EQ(fit("conv2d_oc_vec", to7, "vec=16;tile_oc=4;tile_oh=1;tile_ow=7;work_group=1;unroll_kw=0"),
            "vec=16;tile_oc=2;tile_oh=1;tile_ow=7;work_group=1;unroll_kw=1");
  // Two vectors by two rows of 7: 28 accumulators, 35 live unrolled.
  EXPECT_EQ(fit("conv2d_oc_vec", to7, "vec=16;tile_oc=2;tile_oh=2;tile_ow=7;work_group=1;unroll_kw=0"),
            "vec=16;tile_oc=2;tile_oh=2;tile_ow=7;work_group=1;unroll_kw=0");
  EXPECT_EQ(fit("conv2d_oc_vec", to7, "vec=16;tile_oc=2;tile_oh=1;tile_ow=4;work_group=1;unroll_kw=0"),
            "vec=16;tile_oc=2;tile_oh=1;tile_ow=4;work_group=1;unroll_kw=0");
  EXPECT_EQ(fit("conv2d_oc_vec", "n=1,ci=256,h=9,w=9,co=512,kh=3,kw=3,stride=1,pad=0",
                "vec=16;tile_oc=2;tile_oh=1;tile_ow=7;work_group=1;unroll_kw=0"),
            "vec=16;tile_oc=2;tile_oh=1;tile_ow=7;work_group=1;unroll_kw=0");
  EXPECT_EQ(
      fit("conv2d_oc_vec_nchwc", to7, "vec=16;tile_oc=4;tile_oh=2;tile_ow=2;work_group=4;unroll_kw=0;pad_input=0"),
      "vec=16;tile_oc=2;tile_oh=1;tile_ow=7;work_group=1;unroll_kw=1;pad_input=1");
}

TEST(StartingConfig, DirectBlocksFitTheRegisterFile) {
  const DeviceInfo cpu = Device("cpu", 16);
  const Workload w = ParseWorkload("conv2d", "n=1,ci=64,h=28,w=28,co=128,kh=3,kw=3,stride=1,pad=1");
  const KernelTemplate& direct = PickTemplate(w, "conv2d_oc_vec_nchwc");
  const ConfigSpace space = direct.Space(w, LimitsFor(cpu));
  const auto fit = [&](const char* key, const DeviceInfo& device) {
    Config c = *space.FromKey(key);
    EXPECT_TRUE(space.IsValid(c)) << key;
    direct.FitToTheShape(w, space, device, c);
    return space.Key(c);
  };
  // 24 accumulators and 3x4 weight vectors: 37 live; rolled, 29.
  EXPECT_EQ(fit("vec=16;tile_oc=4;tile_oh=2;tile_ow=3;work_group=1;unroll_kw=1;pad_input=1", cpu),
            "vec=16;tile_oc=4;tile_oh=2;tile_ow=3;work_group=1;unroll_kw=0;pad_input=1");
  // 28 accumulators and four weight vectors: 33 live, rolled already; two vectors, 17.
  EXPECT_EQ(fit("vec=16;tile_oc=4;tile_oh=1;tile_ow=7;work_group=1;unroll_kw=0;pad_input=1", cpu),
            "vec=16;tile_oc=2;tile_oh=1;tile_ow=7;work_group=1;unroll_kw=0;pad_input=1");
  // Unrolled without the pre-pass: 41 live; rolled taps take the pre-pass.
  EXPECT_EQ(fit("vec=16;tile_oc=4;tile_oh=1;tile_ow=7;work_group=1;unroll_kw=1;pad_input=0", cpu),
            "vec=16;tile_oc=2;tile_oh=1;tile_ow=7;work_group=1;unroll_kw=0;pad_input=1");
  // Unrolled in the pre-pass's frame the compiler holds each input column of the row's taps:
  // four vectors by 2x2 at stride 2 hold 2 x 5 (38 live), rolled; by a row of 4, 9 (37), kept;
  // two vectors by a row of 8, 17 (39), rolled; one vector reads its inputs from memory.
  const auto fit_s2 = [&](const char* key) {
    return FittedKey("conv2d_oc_vec_nchwc", "n=1,ci=64,h=56,w=56,co=128,kh=3,kw=3,stride=2,pad=1", key, cpu);
  };
  EXPECT_EQ(fit_s2("vec=16;tile_oc=4;tile_oh=2;tile_ow=2;work_group=4;unroll_kw=1;pad_input=1"),
            "vec=16;tile_oc=4;tile_oh=2;tile_ow=2;work_group=4;unroll_kw=0;pad_input=1");
  EXPECT_EQ(fit_s2("vec=16;tile_oc=4;tile_oh=1;tile_ow=4;work_group=4;unroll_kw=1;pad_input=1"),
            "vec=16;tile_oc=4;tile_oh=1;tile_ow=4;work_group=4;unroll_kw=1;pad_input=1");
  EXPECT_EQ(fit_s2("vec=16;tile_oc=2;tile_oh=1;tile_ow=8;work_group=4;unroll_kw=1;pad_input=1"),
            "vec=16;tile_oc=2;tile_oh=1;tile_ow=8;work_group=4;unroll_kw=0;pad_input=1");
  EXPECT_EQ(fit_s2("vec=16;tile_oc=1;tile_oh=2;tile_ow=7;work_group=1;unroll_kw=1;pad_input=1"),
            "vec=16;tile_oc=1;tile_oh=2;tile_ow=7;work_group=1;unroll_kw=1;pad_input=1");
  // A 1x1 kernel has no taps sharing columns: two vectors by 2x7 keep their 31 live.
  EXPECT_EQ(FittedKey("conv2d_oc_vec_nchwc", "n=1,ci=256,h=14,w=14,co=512,kh=1,kw=1,stride=1,pad=0",
                      "vec=16;tile_oc=2;tile_oh=2;tile_ow=7;work_group=1;unroll_kw=1", cpu),
            "vec=16;tile_oc=2;tile_oh=2;tile_ow=7;work_group=1;unroll_kw=1");
  // 28 accumulators, two vectors rolled: 31 live, as it is.
  EXPECT_EQ(fit("vec=16;tile_oc=2;tile_oh=2;tile_ow=7;work_group=1;unroll_kw=0;pad_input=1", cpu),
            "vec=16;tile_oc=2;tile_oh=2;tile_ow=7;work_group=1;unroll_kw=0;pad_input=1");
  EXPECT_EQ(fit("vec=16;tile_oc=4;tile_oh=1;tile_ow=7;work_group=1;unroll_kw=0;pad_input=0", Device("gpu", 4)),
            "vec=16;tile_oc=4;tile_oh=1;tile_ow=7;work_group=1;unroll_kw=0;pad_input=0");
}

// The Winograd sketches transform their input in the kernel where the pre-pass's output would
// be far larger than a core's caches (16 MB on one compute unit, 1 MB on several) and output
// channels come in at most two groups once widened to four vectors (128 at width 16); else in the pre-pass,
// and without the workload too. 64 channels at a time where the private-memory bound takes
// them, else the largest chunk that fits.
TEST(StartingConfig, WinogradTransformsALargeImageInTheKernel) {
  DeviceInfo cpu = Device("cpu", 16);
  cpu.compute_units = 1;
  const auto fused_ci = [&](const char* name, const char* shape, bool with_workload) {
    const std::string values = StartingValues(name, shape, cpu, {"fused_ci"}, with_workload);
    return values == "none" ? -1 : std::stoi(values.substr(values.find('=') + 1));
  };
  const char* vgg = "n=1,ci=64,h=224,w=224,co=64,kh=3,kw=3,stride=1,pad=1";  // F(2x2): 51 MB transformed
  EXPECT_EQ(fused_ci("conv2d_winograd_f2_nchwc", vgg, true), 64);
  EXPECT_EQ(fused_ci("conv2d_winograd_f2_nchwc", vgg, false), 0);
  // F(4x4): 29 MB; its start's four tiles of 36 values by 64 channels fit the private-memory
  // bound; a transferred config's six tiles pass it with 64 channels: it takes four tiles, and
  // four vectors of output channels (one group).
  EXPECT_EQ(fused_ci("conv2d_winograd_f4_nchwc", vgg, true), 64);
  const Workload w = ParseWorkload("conv2d", vgg);
  const KernelTemplate& f4 = PickTemplate(w, "conv2d_winograd_f4_nchwc");
  const ConfigSpace space = f4.Space(w, LimitsFor(cpu));
  Config six = *space.FromKey("vec=16;tile_oc=2;tiles=6;work_group=4;unroll_ci=4;fused_ci=0");
  EXPECT_EQ(f4.FitToTheShape(w, space, cpu, six), "input transform in the kernel");
  EXPECT_EQ(space.Key(six), "vec=16;tile_oc=4;tiles=4;work_group=4;unroll_ci=4;fused_ci=64");
  // A wider layer's eight tiles by two vectors (WinogradReadsEachWeightForEightTiles), likewise.
  Config eight = *space.FromKey("vec=16;tile_oc=2;tiles=8;work_group=1;unroll_ci=4;fused_ci=0");
  EXPECT_EQ(f4.FitToTheShape(w, space, cpu, eight), "input transform in the kernel");
  EXPECT_EQ(space.Key(eight), "vec=16;tile_oc=4;tiles=4;work_group=1;unroll_ci=4;fused_ci=64");
  // 128 output channels: two groups of four vectors, in the kernel; 256, four groups: the pre-pass.
  EXPECT_EQ(fused_ci("conv2d_winograd_f2_nchwc", "n=1,ci=64,h=224,w=224,co=128,kh=3,kw=3,stride=1,pad=1", true), 64);
  EXPECT_EQ(fused_ci("conv2d_winograd_f2_nchwc", "n=1,ci=64,h=224,w=224,co=256,kh=3,kw=3,stride=1,pad=1", true), 0);
  // ResNet-18's 56x56 layer: 3.2 MB, the pre-pass on one compute unit, in the kernel on two;
  // a 14x14 layer of 256 channels (0.8 MB, output channels narrowed to one group) the pre-pass
  // on both.
  const char* resnet56 = "n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1";
  const char* resnet14 = "n=1,ci=256,h=14,w=14,co=64,kh=3,kw=3,stride=1,pad=1";
  EXPECT_EQ(fused_ci("conv2d_winograd_f2_nchwc", resnet56, true), 0);
  cpu.compute_units = 2;
  EXPECT_EQ(fused_ci("conv2d_winograd_f2_nchwc", resnet56, true), 64);
  EXPECT_EQ(fused_ci("conv2d_winograd_f2_nchwc", resnet14, true), 0);
  cpu.compute_units = 1;
  // Fewer input channels than a chunk: the chunk shrinks to what the padded channels allow.
  EXPECT_EQ(fused_ci("conv2d_winograd_f2_nchwc", "n=1,ci=16,h=448,w=448,co=32,kh=3,kw=3,stride=1,pad=1", true), 16);
}

// Transformed in the kernel, the input is transformed again by every group of output channels:
// the fitted config takes the widest group that the space allows and whose channel loop stays
// within the 32 registers. A config that stays with the pre-pass keeps its group, and one
// transformed in the kernel goes back to the pre-pass where the image is small or the groups many.
TEST(StartingConfig, WinogradInTheKernelTransformsEachTileOnce) {
  DeviceInfo cpu = Device("cpu", 16);
  cpu.compute_units = 1;
  const auto fit = [&](const char* name, const char* shape, const char* key) {
    return FittedKey(name, shape, key, cpu);
  };
  const char* vgg = "n=1,ci=64,h=224,w=224,co=64,kh=3,kw=3,stride=1,pad=1";
  EXPECT_EQ(StartingValues("conv2d_winograd_f4_nchwc", vgg, cpu, {"tile_oc", "fused_ci"}), "tile_oc=4 fused_ci=64");
  EXPECT_EQ(fit("conv2d_winograd_f2_nchwc", vgg, "vec=16;tile_oc=2;tiles=6;work_group=4;unroll_ci=4;fused_ci=0"),
            "vec=16;tile_oc=4;tiles=6;work_group=4;unroll_ci=4;fused_ci=64");
  // Eight tiles by four vectors: 32 sums, 37 live vectors; two vectors stay.
  EXPECT_EQ(fit("conv2d_winograd_f2_nchwc", vgg, "vec=16;tile_oc=2;tiles=8;work_group=4;unroll_ci=4;fused_ci=0"),
            "vec=16;tile_oc=2;tiles=8;work_group=4;unroll_ci=4;fused_ci=64");
  // 32 output channels: two vectors are the whole of them.
  EXPECT_EQ(fit("conv2d_winograd_f2_nchwc", "n=1,ci=16,h=448,w=448,co=32,kh=3,kw=3,stride=1,pad=1",
                "vec=16;tile_oc=1;tiles=4;work_group=1;unroll_ci=4;fused_ci=0"),
            "vec=16;tile_oc=2;tiles=4;work_group=1;unroll_ci=4;fused_ci=16");
  // With the pre-pass (ResNet-18's 56x56 layer on one compute unit), nothing moves.
  const char* resnet56 = "n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1";
  EXPECT_EQ(fit("conv2d_winograd_f4_nchwc", resnet56, "vec=16;tile_oc=2;tiles=4;work_group=1;unroll_ci=4;fused_ci=0"),
            "vec=16;tile_oc=2;tiles=4;work_group=1;unroll_ci=4;fused_ci=0");
  // The 224x224 layer's config transferred to a smaller image, or to one of four groups of output
  // channels, takes the pre-pass: each tile would be transformed once per group.
  const char* vgg_best = "vec=16;tile_oc=4;tiles=4;work_group=1;unroll_ci=4;fused_ci=64";
  const char* with_pre_pass = "vec=16;tile_oc=4;tiles=4;work_group=1;unroll_ci=4;fused_ci=0";
  EXPECT_EQ(fit("conv2d_winograd_f4_nchwc", resnet56, vgg_best), with_pre_pass);
  EXPECT_EQ(fit("conv2d_winograd_f4_nchwc", "n=1,ci=64,h=224,w=224,co=256,kh=3,kw=3,stride=1,pad=1", vgg_best),
            with_pre_pass);
  // 256 input channels as well: their weights outgrow the L2 (WinogradReadsEachWeightForEightTiles).
  EXPECT_EQ(fit("conv2d_winograd_f4_nchwc", "n=1,ci=256,h=56,w=56,co=256,kh=3,kw=3,stride=1,pad=1", vgg_best),
            "vec=16;tile_oc=2;tiles=7;work_group=1;unroll_ci=4;fused_ci=0");
  EXPECT_EQ(fit("conv2d_winograd_f4_nchwc", vgg, vgg_best), vgg_best);
}

// With the pre-pass, a work-item reads its output channels' transformed weights once per block of
// tiles: where they pass 1 MB (F(4x4): 36 x 256 channels x 2 vectors of 16), it takes eight
// tiles by two vectors, or seven where they compute fewer (the 56x56 image's 196 tiles and the
// 28x28 image's 49; a 14x14 image's 16 keep eight); more tiles stay, and so do a GPU's configs
// and smaller weights.
TEST(StartingConfig, WinogradReadsEachWeightForEightTiles) {
  DeviceInfo cpu = Device("cpu", 16);
  cpu.compute_units = 1;
  const auto start = [&](const char* name, const char* shape, const DeviceInfo& device) {
    return StartingValues(name, shape, device, {"tiles", "tile_oc", "fused_ci"});
  };
  const char* vgg56 = "n=1,ci=256,h=56,w=56,co=256,kh=3,kw=3,stride=1,pad=1";  // 2.4 MB of weights a work-item
  const char* vgg28 = "n=1,ci=512,h=28,w=28,co=512,kh=3,kw=3,stride=1,pad=1";
  const char* resnet28 = "n=1,ci=128,h=28,w=28,co=128,kh=3,kw=3,stride=1,pad=1";  // 0.6 MB
  EXPECT_EQ(start("conv2d_winograd_f4_nchwc", vgg56, cpu), "tiles=7 tile_oc=2 fused_ci=0");
  EXPECT_EQ(start("conv2d_winograd_f4_nchwc", vgg28, cpu), "tiles=7 tile_oc=2 fused_ci=0");
  EXPECT_EQ(start("conv2d_winograd_f4_nchwc", resnet28, cpu), "tiles=4 tile_oc=2 fused_ci=0");
  // F(2x2): 16 components, 1 MB at 512 channels by two vectors, within the bound.
  EXPECT_EQ(start("conv2d_winograd_f2_nchwc", vgg28, cpu), "tiles=6 tile_oc=2 fused_ci=0");
  cpu.compute_units = 2;
  EXPECT_EQ(start("conv2d_winograd_f4_nchwc", vgg56, cpu), "tiles=7 tile_oc=2 fused_ci=0");
  EXPECT_EQ(start("conv2d_winograd_f4_nchwc", vgg56, Device("gpu", 4)).find("tiles=7"), std::string::npos);
  // More tiles stay: sixteen on the 56x56 image's 196 compute 208.
  const Workload w56 = ParseWorkload("conv2d", vgg56);
  const ConfigSpace space56 = PickTemplate(w56, "conv2d_winograd_f4_nchwc").Space(w56, LimitsFor(cpu));
  Config sixteen = *space56.FromKey("vec=16;tile_oc=2;tiles=16;work_group=1;unroll_ci=8;fused_ci=0");
  EXPECT_EQ(PickTemplate(w56, "conv2d_winograd_f4_nchwc").FitToTheShape(w56, space56, cpu, sixteen), "");

  const Workload w = ParseWorkload("conv2d", vgg28);
  const KernelTemplate& f4 = PickTemplate(w, "conv2d_winograd_f4_nchwc");
  const ConfigSpace space = f4.Space(w, LimitsFor(cpu));
  const auto fit = [&](const char* key) {
    Config c = *space.FromKey(key);
    const std::string why = f4.FitToTheShape(w, space, cpu, c);
    EXPECT_TRUE(space.IsValid(c)) << key;
    return space.Key(c) + " (" + why + ")";
  };
  EXPECT_EQ(fit("vec=16;tile_oc=4;tiles=4;work_group=1;unroll_ci=8;fused_ci=0"),
            "vec=16;tile_oc=2;tiles=7;work_group=1;unroll_ci=8;fused_ci=0 (at least seven tiles per read of the "
            "weights, which outgrow a core's L2)");
  // Sixteen tiles compute 64 of the image's 49 (WinogradTilesFitTheImage): eight, which stay.
  EXPECT_EQ(fit("vec=16;tile_oc=2;tiles=16;work_group=1;unroll_ci=8;fused_ci=0"),
            "vec=16;tile_oc=2;tiles=8;work_group=1;unroll_ci=8;fused_ci=0 (tiles fitted to the image's 49)");
  // A 32x32 image's 64 tiles: seven would compute 70, eight compute 64.
  const Workload w32 = ParseWorkload("conv2d", "n=1,ci=512,h=32,w=32,co=512,kh=3,kw=3,stride=1,pad=1");
  const ConfigSpace space32 = f4.Space(w32, LimitsFor(cpu));
  Config four = *space32.FromKey("vec=16;tile_oc=4;tiles=4;work_group=1;unroll_ci=8;fused_ci=0");
  EXPECT_NE(f4.FitToTheShape(w32, space32, cpu, four), "");
  EXPECT_EQ(space32.Key(four), "vec=16;tile_oc=2;tiles=8;work_group=1;unroll_ci=8;fused_ci=0");
  EXPECT_EQ(fit("vec=8;tile_oc=1;tiles=4;work_group=1;unroll_ci=8;fused_ci=0"),
            "vec=8;tile_oc=1;tiles=4;work_group=1;unroll_ci=8;fused_ci=0 ()");  // 0.6 MB
  EXPECT_EQ(fit("vec=16;tile_oc=2;tiles=4;work_group=1;unroll_ci=8;fused_ci=32"),
            "vec=16;tile_oc=2;tiles=7;work_group=1;unroll_ci=8;fused_ci=0 (input transform in a pre-pass; at least "
            "seven tiles per read of the weights, which outgrow a core's L2)");
}

// Tiles that do not divide the image's are computed for nothing: past 1.25 times the image's
// tiles, a config's tiles give way to the most of fewer within that share (a 14x14 image's
// sixteen, taken whole, transferred to a 28x28 image's 49). Tiles within it stay, and so do a
// GPU's configs.
TEST(StartingConfig, WinogradTilesFitTheImage) {
  DeviceInfo cpu = Device("cpu", 16);
  cpu.compute_units = 1;
  const auto fit = [&](const char* name, const char* shape, const DeviceInfo& device, const char* key) {
    const Workload w = ParseWorkload("conv2d", shape);
    const KernelTemplate& sketch = PickTemplate(w, name);
    const ConfigSpace space = sketch.Space(w, LimitsFor(device));
    Config c = *space.FromKey(key);
    const std::string why = sketch.FitToTheShape(w, space, device, c);
    EXPECT_TRUE(space.IsValid(c)) << key;
    Config again = c;
    EXPECT_EQ(sketch.FitToTheShape(w, space, device, again), "") << key;  // a fitted config fits
    return space.Key(c) + (why.empty() ? "" : " (" + why + ")");
  };
  const char* resnet28 = "n=1,ci=128,h=28,w=28,co=128,kh=3,kw=3,stride=1,pad=1";  // 49 F(4x4) tiles
  const char* f4 = "conv2d_winograd_f4_nchwc";
  EXPECT_EQ(fit(f4, resnet28, cpu, "vec=16;tile_oc=2;tiles=16;work_group=1;unroll_ci=4;fused_ci=0"),
            "vec=16;tile_oc=2;tiles=8;work_group=1;unroll_ci=4;fused_ci=0 (tiles fitted to the image's 49)");
  EXPECT_EQ(fit(f4, resnet28, cpu, "vec=16;tile_oc=2;tiles=8;work_group=1;unroll_ci=4;fused_ci=0"),
            "vec=16;tile_oc=2;tiles=8;work_group=1;unroll_ci=4;fused_ci=0");
  EXPECT_EQ(fit(f4, resnet28, cpu, "vec=16;tile_oc=1;tiles=4;work_group=2;unroll_ci=4;fused_ci=0"),
            "vec=16;tile_oc=1;tiles=4;work_group=2;unroll_ci=4;fused_ci=0");
  // 25 tiles (20x20): sixteen and eight both compute 32; seven compute 28.
  EXPECT_EQ(fit(f4, "n=1,ci=96,h=20,w=20,co=96,kh=3,kw=3,stride=1,pad=1", cpu,
                "vec=16;tile_oc=2;tiles=16;work_group=1;unroll_ci=4;fused_ci=0"),
            "vec=16;tile_oc=2;tiles=7;work_group=1;unroll_ci=4;fused_ci=0 (tiles fitted to the image's 25)");
  // F(2x2) on 14x14: 49 tiles as well.
  EXPECT_EQ(fit("conv2d_winograd_f2_nchwc", "n=1,ci=256,h=14,w=14,co=256,kh=3,kw=3,stride=1,pad=1", cpu,
                "vec=16;tile_oc=2;tiles=16;work_group=1;unroll_ci=4;fused_ci=0"),
            "vec=16;tile_oc=2;tiles=8;work_group=1;unroll_ci=4;fused_ci=0 (tiles fitted to the image's 49)");
  EXPECT_EQ(fit(f4, resnet28, Device("gpu", 4), "vec=4;tile_oc=2;tiles=16;work_group=1;unroll_ci=4;fused_ci=0"),
            "vec=4;tile_oc=2;tiles=16;work_group=1;unroll_ci=4;fused_ci=0");
}

// A config transferred from a smaller layer carries its pre-pass; fitted to the 224x224 layer
// it transforms in the kernel, and a config already transforming in the kernel stays as it is.
TEST(StartingConfig, FitToTheShapeAdaptsATransferredConfig) {
  const DeviceInfo cpu = Device("cpu", 16);
  const Workload vgg = ParseWorkload("conv2d", "n=1,ci=64,h=224,w=224,co=64,kh=3,kw=3,stride=1,pad=1");
  const KernelTemplate& f2 = PickTemplate(vgg, "conv2d_winograd_f2_nchwc");
  const ConfigSpace space = f2.Space(vgg, LimitsFor(cpu));
  Config transferred = DeviceStartingConfig(f2, space, cpu)->config;  // as from a small layer: the pre-pass
  ASSERT_EQ(space.Scalar(transferred, "fused_ci"), 0);
  EXPECT_EQ(f2.FitToTheShape(vgg, space, cpu, transferred), "input transform in the kernel");
  EXPECT_EQ(space.Scalar(transferred, "fused_ci"), 64);
  EXPECT_TRUE(space.IsValid(transferred));
  const Config fitted = transferred;
  EXPECT_EQ(f2.FitToTheShape(vgg, space, cpu, transferred), "");
  EXPECT_EQ(transferred, fitted);
  // Not on a GPU, where the rule was never measured.
  Config on_gpu = DeviceStartingConfig(f2, space, cpu)->config;
  EXPECT_EQ(f2.FitToTheShape(vgg, space, Device("gpu", 4), on_gpu), "");
}

}  // namespace
}  // namespace tt
