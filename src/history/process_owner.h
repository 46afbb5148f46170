#pragma once
// Which process owns a running run: "host pid start-time" (the start time, field 22 of
// /proc/PID/stat, tells a process from a later one that reuses its pid). Recorded in
// runs.owner and network_runs.owner. No SQLite here.
#include <string>

namespace tt {

// This process, as recorded.
std::string ThisProcessOwner();

// Whether `owner` is a process other than this one that is still alive. One on another host
// cannot be checked and counts as alive; none recorded (an older tensortune) does not.
bool OwnedByAnotherLiveProcess(const std::string& owner);

// Whether `owner` is a process of this host that has ended (or whose pid now names another
// process). False for one on another host and for none recorded: nobody can tell.
bool OwnerIsGone(const std::string& owner);

}  // namespace tt
