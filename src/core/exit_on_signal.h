#pragma once
// How a command ends on SIGINT, SIGTERM or SIGHUP (Ctrl-C, `kill`, a closed terminal): the
// temporaries of outputs not yet complete are removed and the process exits with 130, whatever
// the signal. A tune replaces this with its own handling (schedule/interrupt.h) while it runs.
// Databases need nothing: SQLite rolls back a transaction that was not committed.
#include <string>
#include <vector>

namespace tt {

// Installs the handlers; the process's entry point calls it once.
void ExitOnSignal();

// Paths removed, latest first, when a signal ends the process: register a folder before the
// files in it. The registration ends with the object (or Release) and removes nothing.
class RemovedOnSignal {
 public:
  RemovedOnSignal() = default;
  ~RemovedOnSignal() { Release(); }
  RemovedOnSignal(const RemovedOnSignal&) = delete;
  RemovedOnSignal& operator=(const RemovedOnSignal&) = delete;

  void Add(const std::string& path);
  void Release();

 private:
  std::vector<int> slots_;
};

}  // namespace tt
