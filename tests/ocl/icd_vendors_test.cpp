#include "ocl/icd_vendors.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace tt::ocl {
namespace {

namespace fs = std::filesystem;

void WriteFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A host with NVIDIA's driver library and the ICD loader's folder, in a scratch folder.
class IcdVendors : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("tt-icd-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    saved = getenv("OCL_ICD_VENDORS") ? getenv("OCL_ICD_VENDORS") : "";
    unsetenv("OCL_ICD_VENDORS");
    search.vendors_dir = (root / "etc/OpenCL/vendors").string();
    search.library_dirs = {(root / "usr/local/nvidia/lib64").string(), (root / "usr/lib").string()};
    search.private_root = (root / "run").string();
    WriteFile(root / "etc/OpenCL/vendors/pocl.icd", "libpocl.so.2\n");
  }
  void TearDown() override {
    if (saved.empty())
      unsetenv("OCL_ICD_VENDORS");
    else
      setenv("OCL_ICD_VENDORS", saved.c_str(), 1);
    fs::remove_all(root);
  }

  fs::path root;
  std::string saved;
  IcdSearch search;
};

TEST_F(IcdVendors, AnUnlistedNvidiaDriverIsRegisteredBesideTheHostsOwnDrivers) {
  WriteFile(root / "usr/local/nvidia/lib64/libnvidia-opencl.so.1", "not really a library");
  const IcdReport report = RegisterUnlistedNvidiaDriver(search);
  ASSERT_EQ(report.nvidia_found.size(), 1u);
  EXPECT_FALSE(report.nvidia_listed);
  ASSERT_FALSE(report.registered_in.empty()) << report.problem;
  EXPECT_EQ(std::string(getenv("OCL_ICD_VENDORS")), report.registered_in);
  const fs::path dir = report.registered_in;
  EXPECT_EQ(ReadFile(dir / "nvidia.icd"), report.nvidia_found.front() + "\n");
  EXPECT_NE(report.nvidia_found.front().find("usr/local/nvidia/lib64/libnvidia-opencl.so.1"), std::string::npos);
  EXPECT_EQ(ReadFile(dir / "pocl.icd"), "libpocl.so.2\n") << "the host's drivers stay listed";
}

TEST_F(IcdVendors, ADriverTheVendorFolderListsAlreadyIsLeftAlone) {
  WriteFile(root / "usr/lib/libnvidia-opencl.so.1", "x");
  WriteFile(root / "etc/OpenCL/vendors/nvidia.icd", "libnvidia-opencl.so.1\n");
  const IcdReport report = RegisterUnlistedNvidiaDriver(search);
  EXPECT_TRUE(report.nvidia_listed);
  EXPECT_TRUE(report.registered_in.empty());
  EXPECT_EQ(getenv("OCL_ICD_VENDORS"), nullptr);
}

TEST_F(IcdVendors, TheUsersOwnVendorListWins) {
  WriteFile(root / "usr/lib/libnvidia-opencl.so.1", "x");
  setenv("OCL_ICD_VENDORS", "/somewhere/mine", 1);
  const IcdReport report = RegisterUnlistedNvidiaDriver(search);
  EXPECT_EQ(report.overridden_by, "/somewhere/mine");
  EXPECT_TRUE(report.registered_in.empty());
  EXPECT_EQ(std::string(getenv("OCL_ICD_VENDORS")), "/somewhere/mine");
}

TEST_F(IcdVendors, WithoutNvidiasLibraryNothingIsDone) {
  const IcdReport report = RegisterUnlistedNvidiaDriver(search);
  EXPECT_TRUE(report.nvidia_found.empty());
  EXPECT_TRUE(report.registered_in.empty());
  EXPECT_FALSE(fs::exists(root / "run"));
}

TEST_F(IcdVendors, AnUnwritablePrivateFolderIsReportedNotThrown) {
  WriteFile(root / "usr/lib/libnvidia-opencl.so.1", "x");
  WriteFile(root / "run", "a file where the folder would go");
  const IcdReport report = RegisterUnlistedNvidiaDriver(search);
  EXPECT_TRUE(report.registered_in.empty());
  EXPECT_FALSE(report.problem.empty());
  EXPECT_EQ(getenv("OCL_ICD_VENDORS"), nullptr);
}

}  // namespace
}  // namespace tt::ocl
