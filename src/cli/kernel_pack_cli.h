#pragma once
// The command-line side of export-kernels and run-network: their options, and running the
// one chosen.
#include <CLI/CLI.hpp>
#include <iosfwd>
#include <optional>

#include "cli/kernel_pack_commands.h"

namespace tt {

class KernelPackCommands {
 public:
  explicit KernelPackCommands(CLI::App& app);
  // The exit code of the chosen command, or nullopt when neither was chosen.
  std::optional<int> RunChosen(std::ostream& out, std::ostream& err) const;

 private:
  CLI::App* export_ = nullptr;
  ExportKernelsOptions export_options_;
  CLI::App* run_ = nullptr;
  RunNetworkOptions run_options_;
};

}  // namespace tt
