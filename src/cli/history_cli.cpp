#include "cli/history_cli.h"

#include <ostream>

namespace tt {

HistoryCommands::HistoryCommands(CLI::App& app) {
  import_ = app.add_subcommand("import", "Import AutoTVM / TopHub tuning logs into the history database");
  import_->add_option("files", import_options_.files, "AutoTVM JSON log files (one record per line)")->required();
  import_->add_option("--db", import_options_.db, "History database (created if missing)")->required();
  import_->add_flag("--skip-bad", import_options_.skip_bad, "Import the good records of files with bad lines");
}

std::optional<int> HistoryCommands::RunChosen(std::ostream& out, std::ostream& err) const {
  if (import_->parsed()) return RunImport(import_options_, out, err);
  return std::nullopt;
}

}  // namespace tt
