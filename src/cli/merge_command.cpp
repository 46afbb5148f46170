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
  auto store = SqliteHistoryStore::Open(o.into);
  const MergeCounts counts = store->MergeFrom(o.sources);
  out << fmt::format("{}: {} runs, {} network runs and {} trials added, {} trials already present\n", o.into,
                     counts.runs_added, counts.network_runs_added, counts.trials_added, counts.trials_already_present);
  return 0;
}

}  // namespace tt
