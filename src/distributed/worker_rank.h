#pragma once
// A worker rank of tensortune-mpi: measures the configs that rank 0 sends on its own device,
// through its own measurer (an isolated worker process for OpenCL, as a single-process run),
// and reports that it is alive every second, busy or idle; it leaves when rank 0 is lost.
#include <string>

#include "distributed/rank_channel.h"

namespace tt {

// A worker rank that hears nothing from rank 0 (its pulse comes every second, rank_pulse.h) for
// this long leaves: rank 0 is gone (killed, its host lost), and nobody else would end the job.
// Longer than rank 0's limit for a worker rank (kLostAfterS): losing rank 0 loses the run.
inline constexpr double kRankZeroLostAfterS = 30;

struct WorkerRankEnd {
  int exit_code = 0;
  bool finalize = true;  // end with MPI_Finalize: not once a rank was lost (it would wait for it)
};

// Serves rank 0 until it says stop, or until rank 0 is lost (exit code 3, after one line on
// stderr naming it; the measurement in hand is abandoned). `device_spec` is this rank's
// --device; "local" specs are resolved with `local_index`, the rank's index among the worker
// ranks of its host (see local_device.h).
WorkerRankEnd ServeAsWorkerRank(RankChannel& channel, const std::string& device_spec, int local_index,
                                const std::string& host);

}  // namespace tt
