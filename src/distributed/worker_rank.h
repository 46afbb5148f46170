#pragma once
// A worker rank of tensortune-mpi: measures the configs that rank 0 sends on its own device,
// through its own measurer (an isolated worker process for OpenCL, as a single-process run),
// and reports that it is alive every second, busy or idle.
#include <string>

#include "distributed/rank_channel.h"

namespace tt {

// Serves rank 0 until it says stop; returns whether to end with MPI_Finalize (not once a rank
// was lost: Open MPI's MPI_Finalize would wait for it).
bool ServeAsWorkerRank(RankChannel& channel, const std::string& device_spec, const std::string& host);

}  // namespace tt
