#pragma once
// The device part of `tensortune report`: a roofline per device of this machine, and the
// side-by-side comparison of two databases.
#include <iosfwd>
#include <string>
#include <vector>

#include "history/report_queries.h"

namespace tt {

// Each tuned task of `tasks` on a device of this machine as a point (arithmetic intensity from
// its workload's FLOPs and the bytes of its buffers, achieved GFLOPS) under the device's
// compute peak and bandwidth lines, each drawn when known and noted when not.
// Written to `html` one device at a time; `tasks` and `more` together are the tasks.
void RooflineSections(const ReportQueries& queries, const std::vector<ReportTask>& tasks,
                      const std::vector<ReportTask>& more, const std::vector<ReportDevice>& devices,
                      std::ostream& html);

// The same workloads on the same devices in two databases: best times old and new, and the
// last estimated latency of each network run name.
std::string CompareSection(const std::string& old_name, const ReportQueries& old_queries, const std::string& new_name,
                           const ReportQueries& new_queries);

}  // namespace tt
