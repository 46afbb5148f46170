#include "history/process_owner.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <fstream>
#include <sstream>

namespace tt {
namespace {

// The start time of a process (field 22 of /proc/PID/stat, clock ticks since boot). Empty when
// unknown, "dead" for a process that has ended but not been reaped (a zombie still answers
// kill(pid, 0)).
std::string StartTime(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto end_of_name = text.rfind(')');
  if (end_of_name == std::string::npos) return "";
  std::istringstream fields(text.substr(end_of_name + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 3 && (field == "Z" || field == "X")) return "dead";
  return field;
}

std::string HostName() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

struct Owner {
  std::string host, start;
  int64_t pid = 0;
};

// False when none is recorded.
bool Parse(const std::string& text, Owner& owner) {
  std::istringstream fields(text);
  if (!(fields >> owner.host >> owner.pid) || owner.pid <= 0) return false;
  fields >> owner.start;
  return true;
}

// Of a process on this host.
bool Alive(const Owner& owner) {
  if (kill(static_cast<pid_t>(owner.pid), 0) != 0 && errno == ESRCH) return false;
  return owner.start.empty() || StartTime(static_cast<pid_t>(owner.pid)) == owner.start;
}

}  // namespace

std::string ThisProcessOwner() { return HostName() + " " + std::to_string(getpid()) + " " + StartTime(getpid()); }

bool OwnedByAnotherLiveProcess(const std::string& text) {
  Owner owner;
  if (!Parse(text, owner) || text == ThisProcessOwner()) return false;
  return owner.host != HostName() || Alive(owner);
}

bool OwnerIsGone(const std::string& text) {
  Owner owner;
  return Parse(text, owner) && owner.host == HostName() && !Alive(owner);
}

}  // namespace tt
