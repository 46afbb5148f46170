#include "cli/mpi_launch.h"

#include <cerrno>
#include <cstdlib>

namespace tt {

std::optional<MpiLaunch> DetectMpiLaunch(const std::function<const char*(const char*)>& getenv) {
  for (const char* variable :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MV2_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    const char* value = getenv(variable);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    errno = 0;
    const long size = std::strtol(value, &end, 10);
    if (errno != 0 || *end != '\0') continue;
    if (size > 1) return MpiLaunch{variable, size};
  }
  return std::nullopt;
}

std::string MpiLaunchRefusal(const MpiLaunch& launch) {
  return "tensortune: started as one of " + std::to_string(launch.world_size) + " MPI processes (" + launch.variable +
         "=" + std::to_string(launch.world_size) +
         "), each of which would run a tuning of its own: for one run over the ranks, start tensortune-mpi "
         "(docs/distributed.md); otherwise start tensortune without mpirun";
}

}  // namespace tt
