#include "history/file_system.h"

#include <sys/vfs.h>

#include <filesystem>
#include <mutex>
#include <utility>

namespace tt {
namespace {

std::mutex g_mutex;
std::function<std::optional<int64_t>(const std::string&)> g_probe;

std::optional<int64_t> StatfsType(const std::string& path) {
  struct statfs st {};
  if (statfs(path.c_str(), &st) != 0) return std::nullopt;
  return static_cast<int64_t>(st.f_type);
}

// f_type magic numbers (linux/magic.h and the file systems' own headers).
const char* NetworkName(int64_t type) {
  switch (static_cast<uint32_t>(type)) {
    case 0x6969:
      return "NFS";
    case 0xFF534D42:
      return "CIFS";
    case 0xFE534D42:
      return "SMB2";
    case 0x517B:
      return "SMB";
    case 0x0BD00BD0:
      return "Lustre";
    case 0x47504653:
      return "GPFS";
    case 0x19830326:
      return "BeeGFS";
    case 0x00C36400:
      return "CephFS";
    case 0x6B414653:
      return "AFS";
    case 0x01161970:
      return "GFS2";
    case 0x7461636F:
      return "OCFS2";
    case 0x564C:
      return "NCP";
    default:
      return nullptr;
  }
}

}  // namespace

std::optional<std::string> NetworkFileSystemOf(const std::string& path) {
  std::error_code ec;
  std::filesystem::path probe_path(path);
  if (!std::filesystem::exists(probe_path, ec)) {
    probe_path = std::filesystem::absolute(probe_path, ec).parent_path();
    if (probe_path.empty()) probe_path = ".";
  }
  std::optional<int64_t> type;
  {
    std::lock_guard lock(g_mutex);
    type = g_probe ? g_probe(probe_path.string()) : StatfsType(probe_path.string());
  }
  if (!type) return std::nullopt;
  if (const char* name = NetworkName(*type)) return std::string(name);
  return std::nullopt;
}

void SetFileSystemTypeProbe(std::function<std::optional<int64_t>(const std::string&)> probe) {
  std::lock_guard lock(g_mutex);
  g_probe = std::move(probe);
}

}  // namespace tt
