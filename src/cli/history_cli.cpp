#include "cli/history_cli.h"

#include <ostream>

namespace tt {

HistoryCommands::HistoryCommands(CLI::App& app) {
  import_ = app.add_subcommand("import",
                               "Import AutoTVM / TopHub logs and Kernel Tuner cache files into the history database");
  import_
      ->add_option("files", import_options_.files,
                   "AutoTVM logs (one JSON record per line, record format 0.2 or 0.1: TopHub's packages of every "
                   "version) and Kernel Tuner cache files (JSON with tune_params and cache, closed or open as an "
                   "interrupted run leaves it), told apart by their content")
      ->required();
  import_->add_option("--db", import_options_.db, "History database (created if missing)")->required();
  import_->add_flag("--skip-bad", import_options_.skip_bad,
                    "Import the good records of files with bad lines or cache entries (unusable files are left out)");
  import_->add_option("--device-name", import_options_.device_name,
                      "Device of Kernel Tuner cache files whose device_name is empty (default: the file's name)");

  export_ = app.add_subcommand("export", "Write trials of the history as an AutoTVM log, CSV or JSON");
  ExportOptions& e = export_options_;
  export_->add_option("--db", e.db, "History database")->required();
  export_->add_option("--format", e.format, "autotvm, csv, json or t4 (Kernel Tuner's T4 results)")
      ->capture_default_str();
  export_->add_option("--op", e.op, "Only this operator");
  export_->add_option("--workload", e.workload, "Only this workload key (conv2d:n=1,ci=64,...)");
  export_->add_option("--run", e.run, "Only this run id");
  export_->add_option("--device", e.device, "Only devices whose name contains this");
  export_->add_option("--out", e.out, "Output file (default: standard output)");

  sql_ = app.add_subcommand("sql", "Run one SQL statement on a history database (read-only unless --write)");
  SqlOptions& q = sql_options_;
  sql_->add_option("statement", q.sql, "SQL, e.g. \"SELECT * FROM best_per_task\"")->required();
  sql_->add_option("--db", q.db, "History database")->required();
  sql_->add_flag_callback(
      "--csv", [&q] { q.format = "csv"; }, "Print CSV");
  sql_->add_flag_callback(
      "--json", [&q] { q.format = "json"; }, "Print a JSON array of objects");
  sql_->add_flag("--write", q.write, "Allow a statement that changes the database");
  sql_->add_option("--timeout", q.timeout_s, "Stop a statement still running after this many seconds")
      ->check(CLI::Range(0.001, 1e9))
      ->capture_default_str();

  merge_ = app.add_subcommand("merge", "Merge history databases: devices and workloads unified, no duplicate trials");
  merge_->add_option("sources", merge_options_.sources, "Databases to read")->required();
  merge_->add_option("--into", merge_options_.into, "Database to merge into (created if missing)")->required();

  report_ =
      app.add_subcommand("report", "Write one self-contained HTML page: network latency, layers, roofline, tasks");
  report_->add_option("--db", report_options_.db, "History database (twice: compare the second with the first)")
      ->required()
      ->expected(1, 2);
  report_->add_option("--compare", report_options_.compare, "Another history database to compare with");
  report_->add_option("--peak-gflops", report_options_.peak_gflops,
                      "Store the device's compute peak (GFLOPS) in the database, for the fraction of peak");
  report_->add_option("--bandwidth-gbs", report_options_.bandwidth_gbs,
                      "Store the device's memory bandwidth (GB/s) in the database, for the roofline");
  report_->add_option("--device", report_options_.device,
                      "The device (name or fingerprint) whose peak is given, when the database has several");
  report_->add_option("--run", report_options_.run, "Only this run");
  report_->add_option("--workload", report_options_.workload, "Only this workload key (conv2d:n=1,ci=64,...)");
  report_->add_option("--network-run", report_options_.network_run, "Only this network run (tune-network)");
  report_->add_option("--out", report_options_.out, "HTML file to write")->capture_default_str();
}

std::optional<int> HistoryCommands::RunChosen(std::ostream& out, std::ostream& err) const {
  if (import_->parsed()) return RunImport(import_options_, out, err);
  if (export_->parsed()) return RunExport(export_options_, out, err);
  if (sql_->parsed()) return RunSqlCommand(sql_options_, out);
  if (merge_->parsed()) return RunMerge(merge_options_, out);
  if (report_->parsed()) return RunReport(report_options_, out);
  return std::nullopt;
}

}  // namespace tt
