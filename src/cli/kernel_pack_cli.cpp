#include "cli/kernel_pack_cli.h"

#include <ostream>

#include "cli/seed_option.h"

namespace tt {

KernelPackCommands::KernelPackCommands(CLI::App& app) {
  export_ = app.add_subcommand("export-kernels",
                               "Write a kernel pack of a network's tuned kernels (source, build options, NDRange, "
                               "arguments, layouts) for tensortune::runtime, which then needs no database");
  ExportKernelsOptions& e = export_options_;
  export_->add_option("network", e.network, "Built-in network name or JSON file")->required();
  export_->add_option("--db", e.db, "History database")->required();
  export_->add_option("--device", e.device,
                      "Recorded device to export for: fragment of its name or fingerprint (default: the only device "
                      "of a machine in the database)");
  export_->add_option("--batch", e.batch, "Batch size of the network")->capture_default_str();
  export_->add_option("--out", e.out, "Directory to write (must not exist, or be empty)")->required();
  export_->add_flag("--exact-only", e.exact_only, "Refuse fallbacks: every task needs a verified trial of its own");
  export_->add_flag("--json", e.json, "Print JSON");

  run_ = app.add_subcommand("run-network",
                            "Run a network's tuned layers in order on the device with real buffers, check each "
                            "against the CPU reference, and time the whole network next to tune-network's estimate");
  RunNetworkOptions& r = run_options_;
  run_->add_option("network", r.network, "Built-in network name or JSON file")->required();
  run_->add_option("--db", r.db, "History database (or --pack)");
  run_->add_option("--pack", r.pack, "Kernel pack written by export-kernels (instead of --db)");
  run_->add_flag("--untuned", r.untuned,
                 "Run every layer at its template's untuned default (instead of --db or --pack): the baseline");
  run_->add_option("--device", r.device, "Device index or name fragment")->capture_default_str();
  run_->add_option("--batch", r.batch, "Batch size of the network")->capture_default_str();
  run_->add_option("--min-time", r.min_time_s, "Time whole-network runs for at least this many seconds")
      ->capture_default_str();
  run_->add_option("--min-runs", r.min_runs, "Timed whole-network runs at least")->capture_default_str();
  run_->add_option("--alone-time", r.alone_time_s,
                   "Also time every layer on its own (its kernels back to back, caches warm, as a library benchmark "
                   "times a layer) for at least this many seconds each");
  AddSeedOption(*run_, r.seed, "Seed of the random inputs and weights");
  run_->add_option("--binary-cache", r.binary_cache, "Keep program binaries in this directory between runs");
  run_->add_flag("--exact-only", r.exact_only, "Refuse fallbacks: every layer needs a verified trial of its own");
  run_->add_flag("--trust-pack-source", r.trust_pack_source,
                 "Also run a pack's kernel source that differs from this build's sketch (a pack is code: only for "
                 "packs you trust; buffers and NDRange still come from the sketch)");
  run_->add_flag("--fastest-each", r.fastest_each,
                 "Run every layer's fastest recorded kernel, whatever layout conversions that costs (default: weigh "
                 "kernels of other layouts with the conversions they save)");
  run_->add_flag("--json", r.json, "Print JSON");
}

std::optional<int> KernelPackCommands::RunChosen(std::ostream& out, std::ostream& err) const {
  if (export_->parsed()) return RunExportKernels(export_options_, out, err);
  if (run_->parsed()) return RunRunNetwork(run_options_, out, err);
  return std::nullopt;
}

}  // namespace tt
