#include "ocl/icd_vendors.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace tt::ocl {
namespace {

namespace fs = std::filesystem;
constexpr const char* kNvidiaLibrary = "libnvidia-opencl.so.1";

std::vector<std::string> SplitPath(const char* value) {
  std::vector<std::string> parts;
  if (!value) return parts;
  std::stringstream stream(value);
  std::string part;
  while (std::getline(stream, part, ':'))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::string ReadSmallFile(const fs::path& path) {
  std::ifstream in(path);
  std::string text(4096, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

// The .icd files of a vendor folder: name -> the library line it holds.
std::vector<std::pair<std::string, std::string>> IcdFiles(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    if (entry.path().extension() != ".icd" || !entry.is_regular_file(error)) continue;
    std::string line = ReadSmallFile(entry.path());
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
    files.emplace_back(entry.path().filename().string(), line);
  }
  return files;
}

bool WriteFileAtomically(const fs::path& path, const std::string& text) {
  const fs::path partial = path.string() + ".partial-" + std::to_string(getpid());
  {
    std::ofstream out(partial, std::ios::trunc);
    out << text;
    if (!out.flush()) return false;
  }
  std::error_code error;
  fs::rename(partial, path, error);
  return !error;
}

}  // namespace

IcdSearch DefaultIcdSearch() {
  IcdSearch search;
  search.library_dirs = {
      "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib",
      "/lib/x86_64-linux-gnu"};
  for (const auto& dir : SplitPath(std::getenv("LD_LIBRARY_PATH"))) search.library_dirs.push_back(dir);
  const char* runtime_dir = std::getenv("XDG_RUNTIME_DIR");
  const char* tmp_dir = std::getenv("TMPDIR");
  search.private_root = runtime_dir && *runtime_dir ? runtime_dir : tmp_dir && *tmp_dir ? tmp_dir : "/tmp";
  return search;
}

IcdReport RegisterUnlistedNvidiaDriver(const IcdSearch& search) {
  IcdReport report;
  if (const char* set = std::getenv("OCL_ICD_VENDORS"); set && *set) {
    report.overridden_by = set;
    return report;
  }
  std::error_code error;
  for (const auto& dir : search.library_dirs) {
    const fs::path candidate = fs::path(dir) / kNvidiaLibrary;
    if (!fs::exists(candidate, error)) continue;
    const std::string found = fs::weakly_canonical(candidate, error).string();
    bool seen = false;
    for (const auto& known : report.nvidia_found) seen = seen || known == found;
    if (!seen) report.nvidia_found.push_back(found);
  }
  const auto listed = IcdFiles(search.vendors_dir);
  for (const auto& [name, library] : listed)
    report.nvidia_listed = report.nvidia_listed || library.find("nvidia") != std::string::npos;
  if (report.nvidia_found.empty() || report.nvidia_listed) return report;

  // The private folder lists the host's drivers and NVIDIA's, so that nothing the host had is lost.
  const fs::path dir = fs::path(search.private_root) / ("tensortune-icd-" + std::to_string(getuid()));
  fs::create_directories(dir, error);
  if (error) {
    report.problem = "cannot create " + dir.string() + ": " + error.message();
    return report;
  }
  bool written = WriteFileAtomically(dir / "nvidia.icd", report.nvidia_found.front() + "\n");
  for (const auto& [name, library] : listed)
    if (name != "nvidia.icd") written = written && WriteFileAtomically(dir / name, library + "\n");
  if (!written) {
    report.problem = "cannot write the vendor files in " + dir.string();
    return report;
  }
  setenv("OCL_ICD_VENDORS", dir.c_str(), 1);
  report.registered_in = dir.string();
  return report;
}

const IcdReport& EnsureIcdVendors() {
  static const IcdReport report = RegisterUnlistedNvidiaDriver(DefaultIcdSearch());
  return report;
}

}  // namespace tt::ocl
