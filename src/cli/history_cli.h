#pragma once
// The command-line side of the history-as-data commands (import, export, sql, merge,
// report): their options, and running the one chosen.
#include <CLI/CLI.hpp>
#include <iosfwd>
#include <optional>

#include "cli/export_command.h"
#include "cli/import_command.h"
#include "cli/merge_command.h"
#include "cli/report_command.h"
#include "cli/sql_command.h"

namespace tt {

class HistoryCommands {
 public:
  explicit HistoryCommands(CLI::App& app);
  // The exit code of the chosen command, or nullopt when none of these was chosen.
  std::optional<int> RunChosen(std::ostream& out, std::ostream& err) const;

 private:
  CLI::App* import_ = nullptr;
  ImportOptions import_options_;
  CLI::App* export_ = nullptr;
  ExportOptions export_options_;
  CLI::App* sql_ = nullptr;
  SqlOptions sql_options_;
  CLI::App* merge_ = nullptr;
  MergeOptions merge_options_;
  CLI::App* report_ = nullptr;
  ReportOptions report_options_;
};

}  // namespace tt
