#pragma once
// A worker rank of tensortune-mpi: measures the configs that rank 0 sends on its own device,
// through its own measurer (an isolated worker process for OpenCL, as a single-process run),
// and reports that it is alive every second, busy or idle.
#include <string>

#include "distributed/rank_channel.h"

namespace tt {

// Serves rank 0 until it says stop; returns whether to end with MPI_Finalize (not once a rank
// was lost: Open MPI's MPI_Finalize would wait for it). `device_spec` is this rank's --device;
// "local" specs are resolved with `local_index`, the rank's index among the worker ranks of
// its host (see local_device.h).
bool ServeAsWorkerRank(RankChannel& channel, const std::string& device_spec, int local_index, const std::string& host);

}  // namespace tt
