// Kernel packs: what `tensortune export-kernels` writes and KernelPack::Load reads back, with
// no database. A directory holding manifest.json and kernels/NN_<sketch>.cl; the manifest
// carries a checksum over everything it says, and a hash of every source file, so that an
// edited, truncated or incomplete pack is refused rather than run.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/device_json.h"
#include "core/errors.h"
#include "core/exit_on_signal.h"
#include "runtime/runtime_internal.h"

namespace tensortune {

using tt::runtime::kManifestName;
using tt::runtime::kPackFormat;
using tt::runtime::kPackVersion;
using Json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The device through core's codec (the worker's hello writes the same), with its fingerprint.
Json DeviceJson(const DeviceDescription& d) {
  Json j = tt::DeviceToJson(tt::runtime::ToDeviceInfo(d));
  j["fingerprint"] = d.fingerprint();
  return j;
}

DeviceDescription DeviceFromJson(const Json& j) { return tt::runtime::ToDescription(tt::DeviceFromJson(j)); }

Origin OriginFromName(const std::string& name) {
  for (Origin o : {Origin::kExact, Origin::kSimilarWorkload, Origin::kOtherDevice, Origin::kDefault, Origin::kOverride})
    if (name == ToString(o)) return o;
  throw std::invalid_argument("unknown origin '" + name + "'");
}

Layout LayoutFromName(const std::string& name) {
  tt::TensorLayout layout;
  if (!tt::ParseLayoutName(name, layout)) throw std::invalid_argument("unknown layout '" + name + "'");
  return tt::runtime::ToPublic(layout);
}

// Bounds on what Load reads: far above what export-kernels writes (a manifest of a few hundred
// KiB, kernels of tens), far below what would hurt.
constexpr size_t kMaxManifestBytes = size_t{16} << 20;
constexpr size_t kMaxSourceBytes = size_t{4} << 20;

// `relative` inside the pack `directory`, read whole: a regular file no larger than `limit`
// whose real path (links followed) stays inside the pack. A FIFO, a device, a link out of the
// pack or a file too large is refused, never opened for reading or read until memory runs out.
std::string ReadPackFile(const fs::path& directory, const std::string& relative, size_t limit) {
  std::error_code ec;
  const fs::path root = fs::canonical(directory, ec);
  if (ec) throw std::invalid_argument("cannot read " + directory.string() + ": " + ec.message());
  const fs::path real = fs::canonical(directory / relative, ec);
  if (ec) throw std::invalid_argument("cannot read " + relative + ": " + ec.message());
  const auto [end, unused] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
  if (end != root.end() || real == root) throw std::invalid_argument(relative + " leads out of the pack");
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
  const int fd = ::open(real.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw std::invalid_argument("cannot read " + relative + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) throw std::invalid_argument(relative + " is not a regular file");
  if (static_cast<uint64_t>(st.st_size) > limit)
    throw std::invalid_argument(relative + " is " + std::to_string(st.st_size) + " bytes, more than the " +
                                std::to_string(limit) + " a pack's file may have");
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t have = 0;
  while (have < text.size()) {
    const ssize_t n = ::read(fd, text.data() + have, text.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::invalid_argument("cannot read " + relative + ": " + std::strerror(errno));
    if (n == 0) break;  // shrank while read: the hash or the parser refuses it
    have += static_cast<size_t>(n);
  }
  text.resize(have);
  return text;
}

// Whether JSON text nests deeper than `limit` (strings skipped): the recursive parts of the
// JSON library (dump, destruction) must not exhaust the stack on a hostile manifest.
bool NestsDeeperThan(const std::string& text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

// Everything the manifest says but its checksum, canonically (sorted keys).
std::string Checksum(Json manifest) {
  manifest.erase("checksum");
  return tt::TextHash(manifest.dump());
}

Json TaskJson(const tt::runtime::PackTask& task, const std::string& source_file) {
  const KernelSpec& s = task.spec;
  const Choice& c = s.choice;
  Json arguments = Json::array();
  for (const Argument& a : s.arguments)
    arguments.push_back({{"name", a.name},
                         {"layout", ToString(a.layout)},
                         {"dims", a.dims},
                         {"elements", a.elements},
                         {"output", a.is_output}});
  Json launches = Json::array();
  for (const KernelLaunch& l : s.launches) {
    Json args = Json::array();
    for (const int arg : l.args)
      args.push_back(arg == kScratchArgument ? std::string("scratch") : s.arguments.at(arg).name);
    launches.push_back(
        {{"kernel", l.kernel}, {"dims", l.dims}, {"global", l.global}, {"local", l.local}, {"args", args}});
  }
  return {{"workload", s.workload},
          {"layers", task.layers},
          {"weight", task.weight},
          {"template", c.kernel_template},
          {"config_key", c.config_key},
          {"origin", ToString(c.origin)},
          {"source_workload", c.source_workload},
          {"source_device", c.source_device},
          {"match_score", c.match_score},
          {"recorded_gflops", c.recorded_gflops},
          {"recorded_time_s", c.recorded_time_s},
          {"note", c.note},
          {"flops", s.flops},
          {"source_file", source_file},
          {"source_hash", tt::TextHash(s.source)},
          {"build_options", s.build_options},
          {"arguments", arguments},
          {"scratch_elements", s.scratch_elements},
          {"launches", launches}};
}

KernelSpec TaskFromJson(const Json& t, const fs::path& directory) {
  KernelSpec s;
  s.workload = tt::Workload::FromKey(t.at("workload").get<std::string>()).Key();
  Choice& c = s.choice;
  c.kernel_template = t.at("template").get<std::string>();
  c.config_key = t.at("config_key").get<std::string>();
  c.origin = OriginFromName(t.at("origin").get<std::string>());
  c.source_workload = t.at("source_workload").get<std::string>();
  c.source_device = t.at("source_device").get<std::string>();
  c.match_score = t.at("match_score").get<double>();
  c.recorded_gflops = t.at("recorded_gflops").get<double>();
  c.recorded_time_s = t.at("recorded_time_s").get<double>();
  c.note = t.at("note").get<std::string>();
  s.flops = t.at("flops").get<double>();
  s.build_options = t.at("build_options").get<std::string>();
  s.scratch_elements = t.at("scratch_elements").get<size_t>();
  for (const Json& a : t.at("arguments"))
    s.arguments.push_back({a.at("name").get<std::string>(), LayoutFromName(a.at("layout").get<std::string>()),
                           a.at("dims").get<std::vector<int64_t>>(), a.at("elements").get<size_t>(),
                           a.at("output").get<bool>()});
  for (const Json& l : t.at("launches")) {
    KernelLaunch launch{l.at("kernel").get<std::string>(),
                        l.at("dims").get<unsigned>(),
                        l.at("global").get<std::array<size_t, 3>>(),
                        l.at("local").get<std::array<size_t, 3>>(),
                        {}};
    for (const Json& arg : l.at("args")) {
      const std::string name = arg.get<std::string>();
      if (name == "scratch") {
        launch.args.push_back(kScratchArgument);
        continue;
      }
      const auto it =
          std::find_if(s.arguments.begin(), s.arguments.end(), [&](const Argument& a) { return a.name == name; });
      if (it == s.arguments.end())
        throw std::invalid_argument("kernel argument '" + name + "' is no buffer of the task");
      launch.args.push_back(static_cast<int>(it - s.arguments.begin()));
    }
    s.launches.push_back(std::move(launch));
  }
  const std::string file = t.at("source_file").get<std::string>();
  if (file.empty() || fs::path(file).is_absolute() || file.find("..") != std::string::npos)
    throw std::invalid_argument("source file '" + file + "' is not inside the pack");
  s.source = ReadPackFile(directory, file, kMaxSourceBytes);
  if (tt::TextHash(s.source) != t.at("source_hash").get<std::string>())
    throw std::invalid_argument(file + " is not the source that was exported (its hash differs)");
  return s;
}

}  // namespace

KernelPack KernelPack::Load(const std::string& directory) {
  const fs::path manifest_path = fs::path(directory) / kManifestName;
  const auto damaged = [&](const std::string& why) {
    return Error(ErrorCode::kDamagedPack, "kernel pack " + directory + ": " + why);
  };
  std::error_code ec;
  if (!fs::is_directory(directory, ec)) throw damaged("no such directory");
  if (!fs::exists(manifest_path, ec)) throw damaged(std::string("no ") + kManifestName);
  std::string manifest_text;
  try {
    manifest_text = ReadPackFile(directory, kManifestName, kMaxManifestBytes);
  } catch (const std::exception& e) {
    throw damaged(e.what());
  }
  if (NestsDeeperThan(manifest_text, 64)) throw damaged(std::string(kManifestName) + " nests too deep");
  Json manifest;
  try {
    manifest = Json::parse(manifest_text);
  } catch (const std::exception& e) {
    throw damaged(std::string(kManifestName) + " is not valid JSON: " + e.what());
  }
  KernelPack pack;
  pack.directory_ = directory;
  try {
    if (!manifest.is_object() || manifest.value("format", "") != kPackFormat)
      throw damaged(std::string(kManifestName) + " is not a tensortune kernel pack manifest");
    const int version = manifest.at("version").get<int>();
    if (version > kPackVersion)
      throw damaged("format version " + std::to_string(version) +
                    " was written by a newer tensortune (this one reads " + std::to_string(kPackVersion) + ")");
    if (manifest.at("checksum").get<std::string>() != Checksum(manifest))
      throw damaged(std::string(kManifestName) + " was changed after it was exported (checksum mismatch)");
    pack.device_ = DeviceFromJson(manifest.at("device"));
    pack.network_ = manifest.at("network").get<std::string>();
    pack.batch_ = manifest.at("batch").get<int64_t>();
    std::set<std::string> seen;
    const tt::DeviceInfo device = tt::runtime::ToDeviceInfo(pack.device_);
    for (const Json& task : manifest.at("tasks")) {
      KernelSpec spec = TaskFromJson(task, directory);
      if (!seen.insert(spec.workload).second) throw damaged("workload " + spec.workload + " appears twice");
      tt::runtime::CheckSpec(spec, device, ErrorCode::kDamagedPack);
      pack.kernels_.push_back(std::move(spec));
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw damaged(e.what());
  }
  return pack;
}

const KernelSpec* KernelPack::Find(const std::string& workload_key) const {
  for (const KernelSpec& k : kernels_)
    if (k.workload == workload_key) return &k;
  return nullptr;
}

}  // namespace tensortune

namespace tt::runtime {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using tensortune::Checksum;
using tensortune::DeviceJson;
using tensortune::TaskJson;

namespace {

// The temporary folder beside `target` for process `pid`: target's name, cut to stay within
// NAME_MAX with the suffix, then ".partial-PID".
fs::path PartialPath(const fs::path& target, pid_t pid) {
  const std::string suffix = ".partial-" + std::to_string(pid);
  std::string name = target.filename().string();
  if (name.size() + suffix.size() > 255) name.resize(255 - suffix.size());
  return target.parent_path() / (name + suffix);
}

// Removes what an export killed (SIGKILL, a crash) left beside `target`: its temporary folders
// of processes that no longer exist.
void RemoveStalePartials(const fs::path& target) {
  std::error_code ec;
  const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const std::string prefix = PartialPath(target, 0).filename().string();
  const std::string stem = prefix.substr(0, prefix.size() - 1);  // "NAME.partial-"
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= stem.size() || name.compare(0, stem.size(), stem) != 0) continue;
    const std::string digits = name.substr(stem.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    const auto pid = static_cast<pid_t>(std::stol(digits));
    if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) fs::remove_all(it->path(), ec);
  }
}

// A failed write: the environment's fault (exit 3) when the disk is full or failing.
[[noreturn]] void ThrowWriteError(const fs::path& path, int error) {
  const std::string message = "cannot write " + path.string() + ": " + std::strerror(error);
  if (error == ENOSPC || error == EDQUOT || error == EIO || error == EFBIG) throw EnvironmentError(message);
  throw UserError(message);
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  errno = 0;
  out << text;
  out.flush();
  if (!out) ThrowWriteError(path, errno ? errno : EIO);
  out.close();
  if (!out) ThrowWriteError(path, errno ? errno : EIO);
}

}  // namespace

void WritePack(const std::string& directory, const tensortune::DeviceDescription& device, const std::string& network,
               int64_t batch, const std::vector<PackTask>& tasks) {
  std::error_code ec;
  const fs::path target(directory);
  if (fs::exists(target, ec) && !(fs::is_directory(target, ec) && fs::is_empty(target, ec)))
    throw UserError("output directory " + directory + " exists and is not empty");
  RemoveStalePartials(target);
  const fs::path partial = PartialPath(target, ::getpid());
  fs::remove_all(partial, ec);
  tt::RemovedOnSignal cleanup;  // a signal that ends the process removes the partial pack
  cleanup.Add(partial.string());
  cleanup.Add((partial / "kernels").string());
  if (!fs::create_directories(partial / "kernels", ec)) ThrowWriteError(partial, ec ? ec.value() : EEXIST);
  try {
    Json list = Json::array();
    for (size_t i = 0; i < tasks.size(); ++i) {
      char prefix[32];
      std::snprintf(prefix, sizeof prefix, "%02zu_", i);
      const std::string file = "kernels/" + std::string(prefix) + tasks[i].spec.choice.kernel_template + ".cl";
      cleanup.Add((partial / file).string());
      WriteFile(partial / file, tasks[i].spec.source);
      list.push_back(TaskJson(tasks[i], file));
    }
    Json manifest = {{"format", kPackFormat}, {"version", kPackVersion},      {"network", network},
                     {"batch", batch},        {"device", DeviceJson(device)}, {"tasks", list}};
    manifest["checksum"] = Checksum(manifest);
    cleanup.Add((partial / kManifestName).string());
    WriteFile(partial / kManifestName, manifest.dump(2) + "\n");
    if (fs::exists(target, ec)) fs::remove(target, ec);  // an empty directory
    fs::rename(partial, target, ec);
    if (ec) throw EnvironmentError("cannot move " + partial.string() + " to " + directory + ": " + ec.message());
  } catch (...) {
    fs::remove_all(partial, ec);
    throw;
  }
}

}  // namespace tt::runtime
