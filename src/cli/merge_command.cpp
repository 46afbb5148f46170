#include "cli/merge_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <ostream>

#include "core/errors.h"
#include "history/sqlite_history_store.h"

namespace tt {

int RunMerge(const MergeOptions& o, std::ostream& out) {
  if (o.sources.empty()) throw UserError("no database to merge");
  namespace fs = std::filesystem;
  for (const auto& source : o.sources) {
    std::error_code ec;
    if (fs::exists(o.into, ec) && fs::equivalent(source, o.into, ec))
      throw UserError(source + " is the database merged into");
    SqliteHistoryStore::CheckMergeSource(source);
  }
  // A target this merge creates is removed again when the merge is refused: nothing written.
  std::error_code ec;
  const bool created = !fs::exists(fs::symlink_status(o.into, ec));
  MergeCounts counts;
  try {
    auto store = SqliteHistoryStore::Open(o.into);
    counts = store->MergeFrom(o.sources);
  } catch (...) {
    if (created)
      for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(o.into + suffix, ec);
    throw;
  }
  out << fmt::format("{}: {} runs, {} network runs and {} trials added, {} trials already present\n", o.into,
                     counts.runs_added, counts.network_runs_added, counts.trials_added, counts.trials_already_present);
  return 0;
}

}  // namespace tt
