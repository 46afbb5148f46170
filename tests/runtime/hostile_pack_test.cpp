// Kernel packs made by someone else. A checksum catches damage, not intent: a pack whose
// manifest lies about its buffers, names a sketch this build does not have, or carries an
// edited (and re-hashed) kernel is refused, and a pack's files are read bounded, never from a
// FIFO, a device or a link out of the pack.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "cli/run_program.h"
#include "runtime/runtime_internal.h"
#include "runtime_test_support.h"
#include "tensortune/history.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using tensortune::ErrorCode;
using testing::ClEnvironment;
using testing::ScratchDir;

const tensortune::Workload kGemm{"gemm", "64,48,40", {}};

template <class F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const tensortune::Error& e) {
    return std::string(e.code() == ErrorCode::kDamagedPack ? "damaged: " : "other: ") + e.what();
  }
  return "no error";
}

// The spec export-kernels would write for kGemm on this device.
tensortune::KernelSpec GemmSpec(ClEnvironment& cl, const ScratchDir& dir) {
  const Workload w = testing::Parse(kGemm);
  const std::string db = (dir.path() / "history.db").string();
  testing::Record(
      db, w, "gemm_tiled",
      testing::FindConfig(w, "gemm_tiled", cl.info(), [](const ConfigSpace&, const Config&) { return true; }),
      cl.info());
  return tensortune::Choose(kGemm, *tensortune::OpenHistory(db), runtime::ToDescription(cl.info()));
}

std::string WritePack(ClEnvironment& cl, const ScratchDir& dir, const std::string& name,
                      const tensortune::KernelSpec& spec) {
  const std::string out = (dir.path() / name).string();
  runtime::WritePack(out, runtime::ToDescription(cl.info()), "test", 1, {{spec, {"fc"}, 1}});
  return out;
}

// Before: "corrupted double-linked list" (heap corruption) in run-network.
TEST(HostilePack, ATaskOfAnUnknownSketchIsRefused) {
  ClEnvironment cl;
  ScratchDir dir;
  tensortune::KernelSpec spec = GemmSpec(cl, dir);
  spec.choice.kernel_template = "no_such_sketch";
  for (auto& argument : spec.arguments)
    if (argument.is_output) argument.elements = 1;
  const auto pack = tensortune::KernelPack::Load(WritePack(cl, dir, "unknown", spec));
  const tensortune::Runtime runtime(cl.context(), cl.device());
  const std::string error = ErrorOf([&] { runtime.Prepare(kGemm, pack); });
  EXPECT_EQ(error.rfind("damaged: ", 0), 0u) << error;
  EXPECT_NE(error.find("this tensortune does not have"), std::string::npos) << error;
}

TEST(HostilePack, BufferSizesClaimedByTheManifestMustBeTheSketchs) {
  ClEnvironment cl;
  ScratchDir dir;
  tensortune::KernelSpec spec = GemmSpec(cl, dir);
  for (auto& argument : spec.arguments)
    if (argument.is_output) argument.elements = 1;
  const auto pack = tensortune::KernelPack::Load(WritePack(cl, dir, "small", spec));
  const tensortune::Runtime runtime(cl.context(), cl.device());
  EXPECT_EQ(ErrorOf([&] { runtime.Prepare(kGemm, pack); }).rfind("damaged: ", 0), 0u);
}

// Before: an out-of-bounds store, re-hashed, was run (a segfault).
TEST(HostilePack, AnEditedAndRehashedSourceRunsOnlyWhenTrusted) {
  ClEnvironment cl;
  ScratchDir dir;
  tensortune::KernelSpec spec = GemmSpec(cl, dir);
  const auto sketch_arguments = spec.arguments;
  spec.source += "\n// edited after export\n";
  const auto pack = tensortune::KernelPack::Load(WritePack(cl, dir, "edited", spec));
  const tensortune::Runtime runtime(cl.context(), cl.device());
  const std::string error = ErrorOf([&] { runtime.Prepare(kGemm, pack); });
  EXPECT_EQ(error.rfind("damaged: ", 0), 0u) << error;
  EXPECT_NE(error.find("trust_pack_source"), std::string::npos) << error;
  tensortune::PrepareOptions trusted;
  trusted.trust_pack_source = true;
  const tensortune::KernelSpec chosen = tensortune::Choose(kGemm, pack, runtime::ToDescription(cl.info()), trusted);
  EXPECT_EQ(chosen.source, spec.source);
  ASSERT_EQ(chosen.arguments.size(), sketch_arguments.size());
  for (size_t i = 0; i < chosen.arguments.size(); ++i)
    EXPECT_EQ(chosen.arguments[i].elements, sketch_arguments[i].elements);
}

fs::path KernelFile(const std::string& pack) {
  for (const auto& f : fs::directory_iterator(fs::path(pack) / "kernels")) return f.path();
  return {};
}

std::string LoadError(const std::string& pack) {
  return ErrorOf([&] { tensortune::KernelPack::Load(pack); });
}

// Before: a FIFO blocked forever, /dev/zero was read until memory ran out, a link out of the
// pack was followed, a 300 MB manifest was read whole.
TEST(HostilePack, ItsFilesAreReadBoundedAndOnlyFromInsideThePack) {
  ClEnvironment cl;
  ScratchDir dir;
  const tensortune::KernelSpec spec = GemmSpec(cl, dir);
  const auto fresh = [&](const std::string& name) { return WritePack(cl, dir, name, spec); };
  {
    const std::string pack = fresh("fifo");
    fs::remove(fs::path(pack) / "manifest.json");
    ASSERT_EQ(::mkfifo((fs::path(pack) / "manifest.json").c_str(), 0600), 0);
    EXPECT_NE(LoadError(pack).find("damaged: "), std::string::npos) << LoadError(pack);
    EXPECT_NE(LoadError(pack).find("not a regular file"), std::string::npos) << LoadError(pack);
  }
  {
    const std::string pack = fresh("zero");
    const fs::path kernel = KernelFile(pack);
    fs::remove(kernel);
    fs::create_symlink("/dev/zero", kernel);
    EXPECT_NE(LoadError(pack).find("leads out of the pack"), std::string::npos) << LoadError(pack);
  }
  {
    const std::string pack = fresh("outside");
    const fs::path kernel = KernelFile(pack);
    const fs::path elsewhere = dir.path() / "elsewhere.cl";
    fs::rename(kernel, elsewhere);
    fs::create_symlink(elsewhere, kernel);
    EXPECT_NE(LoadError(pack).find("leads out of the pack"), std::string::npos) << LoadError(pack);
  }
  {
    const std::string pack = fresh("huge");
    fs::resize_file(fs::path(pack) / "manifest.json", uintmax_t{300} << 20);
    EXPECT_NE(LoadError(pack).find("a pack's file may have"), std::string::npos) << LoadError(pack);
  }
  {
    const std::string pack = fresh("inside");  // a link that stays inside the pack is fine
    const fs::path kernel = KernelFile(pack);
    fs::rename(kernel, fs::path(pack) / "kernels" / "real.cl");
    fs::create_symlink("real.cl", kernel);
    EXPECT_NO_THROW(tensortune::KernelPack::Load(pack));
  }
}

}  // namespace
}  // namespace tt
