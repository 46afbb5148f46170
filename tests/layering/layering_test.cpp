// The layering of src/ checked against docs/architecture.md: the picture of the allowed arrows
// there ("The same arrows as a picture") is read as the rule, then every `#include` of every file
// under src/ and every target_link_libraries of src/*/CMakeLists.txt must follow an arrow (or a
// chain of arrows) down. An include or a link up, or an arrow the document does not draw, fails
// and names the file and the line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Graph = std::map<std::string, std::set<std::string>>;

const fs::path kSource = TT_SOURCE_DIR;

std::string Trim(std::string s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

// The arrows drawn in docs/architecture.md: each line of the picture is "module ──> a, b, c"
// (the module's name, then after ">" what it may use), with remarks in parentheses.
Graph DocumentedArrows() {
  std::ifstream in(kSource / "docs" / "architecture.md");
  EXPECT_TRUE(in) << "docs/architecture.md is missing";
  std::string line;
  while (std::getline(in, line) && line.find("The same arrows as a picture") == std::string::npos) {
  }
  while (std::getline(in, line) && line.rfind("```", 0) != 0) {
  }
  Graph arrows;
  while (std::getline(in, line) && line.rfind("```", 0) != 0) {
    const auto name_end = line.find_first_of(" \xe2");  // a space or the first byte of "─"
    const auto head = line.find('>');
    if (name_end == 0 || name_end == std::string::npos || head == std::string::npos) continue;
    const std::string module = line.substr(0, name_end);
    std::string targets = std::regex_replace(line.substr(head + 1), std::regex(R"(\([^)]*\))"), "");
    auto& to = arrows[module];
    std::stringstream list(targets);
    for (std::string target; std::getline(list, target, ',');)
      if (!Trim(target).empty()) to.insert(Trim(target));
  }
  EXPECT_FALSE(arrows.empty()) << "no arrows read from docs/architecture.md's picture";
  return arrows;
}

// Every module reachable from `from` along `arrows`, `from` included.
std::set<std::string> Reach(const Graph& arrows, const std::string& from) {
  std::set<std::string> seen{from};
  std::vector<std::string> todo{from};
  while (!todo.empty()) {
    const std::string at = todo.back();
    todo.pop_back();
    const auto it = arrows.find(at);
    if (it == arrows.end()) continue;
    for (const auto& to : it->second)
      if (seen.insert(to).second) todo.push_back(to);
  }
  return seen;
}

// The module a file of src/ belongs to: its folder, but for the programs and components that the
// document draws apart (the worker program in measure/, the runtime's history component).
std::string ModuleOf(const fs::path& relative) {
  const std::string path = relative.generic_string();
  if (path.rfind("measure/worker_main", 0) == 0 || path.rfind("measure/worker_session", 0) == 0 ||
      path.rfind("measure/user_kernel_session", 0) == 0)
    return "tensortune-worker";
  if (path == "runtime/history_source.cpp" || path == "runtime/include/tensortune/history.h") return "runtime-history";
  return relative.begin()->string();
}

// The module an `#include "path"` names, or "" for a header outside src/ (third-party, tests).
// The runtime's public headers are included as "tensortune/...", the name they are installed under.
std::string ModuleOfInclude(const std::string& include) {
  if (fs::exists(kSource / "src" / "runtime" / "include" / include))
    return ModuleOf(fs::path("runtime") / "include" / include);
  if (fs::exists(kSource / "src" / include)) return ModuleOf(include);
  return "";
}

struct Use {
  std::string from, to, where;
};

std::vector<Use> IncludesOfSrc() {
  std::vector<Use> uses;
  const std::regex include_line(R"(^\s*#\s*include\s*"([^"]+)\")");
  for (const auto& entry : fs::recursive_directory_iterator(kSource / "src")) {
    const auto ext = entry.path().extension();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
    const fs::path relative = fs::relative(entry.path(), kSource / "src");
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      std::smatch m;
      if (!std::regex_search(line, m, include_line)) continue;
      const std::string to = ModuleOfInclude(m[1]);
      if (to.empty()) continue;
      uses.push_back({ModuleOf(relative), to, "src/" + relative.generic_string() + ":" + std::to_string(number)});
    }
  }
  return uses;
}

TEST(Layering, ArchitecturePictureDrawsNoCycle) {
  const Graph arrows = DocumentedArrows();
  for (const auto& [module, to] : arrows)
    for (const auto& target : to)
      EXPECT_EQ(Reach(arrows, target).count(module), 0u) << module << " -> " << target << " closes a cycle";
}

TEST(Layering, EveryModuleOfSrcIsInThePicture) {
  const Graph arrows = DocumentedArrows();
  std::set<std::string> drawn;
  for (const auto& [module, to] : arrows) {
    drawn.insert(module);
    drawn.insert(to.begin(), to.end());
  }
  for (const auto& entry : fs::directory_iterator(kSource / "src")) {
    if (!entry.is_directory()) continue;
    EXPECT_EQ(drawn.count(entry.path().filename().string()), 1u)
        << "src/" << entry.path().filename().string() << " is not in docs/architecture.md's picture";
  }
}

TEST(Layering, EveryIncludeOfSrcFollowsTheArrows) {
  const Graph arrows = DocumentedArrows();
  const auto uses = IncludesOfSrc();
  ASSERT_GT(uses.size(), 100u) << "too few includes read from src/";
  for (const auto& use : uses)
    EXPECT_EQ(Reach(arrows, use.from).count(use.to), 1u)
        << use.where << ": " << use.from << " includes " << use.to
        << ", an arrow docs/architecture.md does not allow (an arrow up?)";
}

// The installed runtime runs tuned kernels; no tuner, cost model or tuning engine may reach it.
const std::vector<std::string> kTuningModules = {"tuners", "model", "warmstart", "schedule", "measure", "cli"};

TEST(Layering, RuntimeIncludesReachNoTuner) {
  Graph used;  // the arrows the includes actually draw
  for (const auto& use : IncludesOfSrc())
    if (use.from != use.to) used[use.from].insert(use.to);
  for (const std::string runtime : {"runtime", "runtime-history"}) {
    const auto reached = Reach(used, runtime);
    EXPECT_GT(reached.size(), 1u) << runtime << " includes nothing of src/: the check reads nothing";
    for (const auto& module : kTuningModules)
      EXPECT_EQ(reached.count(module), 0u) << runtime << "'s includes reach " << module << "/";
  }
}

// target_link_libraries of src/*/CMakeLists.txt: target -> the project's targets it links.
struct Targets {
  std::map<std::string, std::string> folder;  // target -> the src/ folder that defines it
  Graph links;
};

Targets ReadTargets() {
  Targets targets;
  const std::regex define(R"(add_(library|executable)\(\s*([A-Za-z0-9_-]+))");
  const std::regex link(R"(target_link_libraries\(\s*([A-Za-z0-9_-]+)([^)]*)\))");
  for (const auto& entry : fs::directory_iterator(kSource / "src")) {
    const fs::path cmake = entry.path() / "CMakeLists.txt";
    if (!entry.is_directory() || !fs::exists(cmake)) continue;
    std::ifstream in(cmake);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::sregex_iterator m(text.begin(), text.end(), define), end; m != end; ++m)
      targets.folder[(*m)[2]] = entry.path().filename().string();
    for (std::sregex_iterator m(text.begin(), text.end(), link), end; m != end; ++m) {
      std::stringstream words((*m)[2].str());
      for (std::string word; words >> word;) targets.links[(*m)[1]].insert(word);
    }
  }
  return targets;
}

TEST(Layering, RuntimeTargetsLinkNoTuner) {
  const Targets targets = ReadTargets();
  // Only the project's own targets (the words of a link line that some folder defines).
  Graph own;
  for (const auto& [target, links] : targets.links)
    for (const auto& to : links)
      if (targets.folder.count(to)) own[target].insert(to);
  std::vector<std::string> runtime_targets;
  for (const auto& [target, folder] : targets.folder)
    if (folder == "runtime") runtime_targets.push_back(target);
  ASSERT_GE(runtime_targets.size(), 4u) << "the runtime's targets were not found in src/runtime/CMakeLists.txt";
  for (const auto& target : runtime_targets)
    for (const auto& reached : Reach(own, target)) {
      const std::string folder = targets.folder.at(reached);
      for (const auto& module : kTuningModules)
        EXPECT_NE(folder, module) << target << " links " << reached << " (src/" << folder << "/)";
    }
}

TEST(Layering, EveryLinkOfSrcFollowsTheArrows) {
  const Graph arrows = DocumentedArrows();
  const Targets targets = ReadTargets();
  for (const auto& [target, links] : targets.links) {
    const auto from_folder = targets.folder.find(target);
    if (from_folder == targets.folder.end()) continue;
    // The runtime's history component and the worker program (with its library) are drawn apart.
    std::string from = from_folder->second;
    if (target.find("history") != std::string::npos && from == "runtime") from = "runtime-history";
    if (target == "tensortune-worker" || target == "tt_worker_session") from = "tensortune-worker";
    for (const auto& to : links) {
      const auto to_folder = targets.folder.find(to);
      if (to_folder == targets.folder.end()) continue;
      std::string module = to_folder->second;
      if (to.find("history") != std::string::npos && module == "runtime") module = "runtime-history";
      EXPECT_EQ(Reach(arrows, from).count(module), 1u)
          << "src/" << from_folder->second << "/CMakeLists.txt: " << target << " links " << to << " (" << module
          << "), an arrow docs/architecture.md does not allow";
    }
  }
}

// OpenCL is the business of ocl/, the runtime (tensortune::NetworkRunner runs run-network's
// layers) and the programs that measure; the command line names none of its types or calls.
TEST(Layering, TheCommandLineNamesNoOpenClTypeOrCall) {
  const std::regex opencl(R"((\bcl_[a-z]\w*)|(\bcl[A-Z]\w*\s*\()|(<CL/))");
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kSource / "src" / "cli")) {
    if (!entry.is_regular_file()) continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      std::smatch m;
      EXPECT_FALSE(std::regex_search(line, m, opencl))
          << "src/cli/" << entry.path().filename().string() << ":" << number << " names OpenCL's " << m.str()
          << "; OpenCL belongs in ocl/ or the runtime";
    }
  }
  EXPECT_GT(files, 10) << "too few files read from src/cli";
}

}  // namespace
