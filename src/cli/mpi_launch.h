#pragma once
// Whether this process is one of several that an MPI launcher (mpirun, mpiexec, srun) started.
// The plain tensortune then refuses: each process would run a tuning of its own (three times the
// trials for `mpirun -n 3`); one run over MPI ranks is tensortune-mpi's job (docs/distributed.md).
#include <functional>
#include <optional>
#include <string>

namespace tt {

struct MpiLaunch {
  std::string variable;  // the environment variable that tells, e.g. OMPI_COMM_WORLD_SIZE
  long world_size = 0;   // more than 1
};

// Reads, through `getenv`, the world size that Open MPI (OMPI_COMM_WORLD_SIZE), MPICH and Intel
// MPI (PMI_SIZE), PMIx launchers (PMIX_SIZE), MVAPICH (MV2_COMM_WORLD_SIZE) and Slurm's srun
// (SLURM_STEP_NUM_TASKS, set for a job step; not SLURM_NTASKS, which a batch script that starts
// one process also has) give their processes. Nothing for a world of one process (`mpirun -n 1`
// changes nothing) or when no launcher says so; a value that is not a number is not read.
std::optional<MpiLaunch> DetectMpiLaunch(const std::function<const char*(const char*)>& getenv);

// The one-line refusal for `launch`, naming tensortune-mpi.
std::string MpiLaunchRefusal(const MpiLaunch& launch);

}  // namespace tt
