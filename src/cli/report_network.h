#pragma once
// The network part of `tensortune report`: per network run, its latency (estimated, untuned),
// a bar per layer (time x weight, GFLOPS, fraction of the device's peak), the anytime curves,
// where the tuning time went, the sketch each layer settled on, and the commands to run it.
#include <string>
#include <vector>

#include "history/report_queries.h"

namespace tt {

// `db_name`: the database as the user named it, for the commands shown.
std::string NetworkSections(const ReportQueries& queries, const std::vector<ReportNetworkRun>& runs,
                            const std::vector<ReportDevice>& devices, const std::string& db_name);

// "12.3 ms", "-" when unknown: a time as the report shows it.
std::string Ms(std::optional<double> seconds);

}  // namespace tt
