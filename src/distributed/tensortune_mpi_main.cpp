// tensortune-mpi: the tensortune command line over the ranks of an MPI job. Rank 0 runs the
// command (scheduler, tuners, the one writer of the history); every other rank measures on its
// own device. A separate program, so that tensortune itself never needs MPI to start.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>

#include "cli/cli_main.h"
#include "distributed/rank_channel.h"
#include "distributed/rank_measurer.h"
#include "distributed/rank_pulse.h"
#include "distributed/worker_rank.h"
#include "measure/opencl_measurer.h"
#include "ocl/driver_threads.h"

namespace {

std::string Hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown-host";
  return name;
}

// This rank's --device, as the command line it was started with gives it (each part of an
// `mpirun ... : ...` launch has its own).
std::string DeviceSpecOf(int argc, char** argv) {
  std::string spec = "0";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--device" && i + 1 < argc)
      spec = argv[++i];
    else if (arg.rfind("--device=", 0) == 0)
      spec = std::string(arg.substr(9));
  }
  return spec;
}

// The index of this rank among the worker ranks (all but rank 0) of its host. Collective.
int WorkerIndexOnHost(int rank) {
  MPI_Comm host, workers;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
  MPI_Comm_split(host, rank == 0 ? 1 : 0, rank, &workers);
  int index = 0;
  MPI_Comm_rank(workers, &index);
  MPI_Comm_free(&workers);
  MPI_Comm_free(&host);
  return index;
}

// Open MPI's MPI_Finalize waits for every rank, a lost one too: after a loss the ranks leave
// without it (mpirun --enable-recovery lets them).
[[noreturn]] void Leave(int code, bool finalize) {
  std::cout.flush();
  std::cerr.flush();
  if (finalize) {
    MPI_Finalize();
    std::exit(code);
  }
  std::fflush(nullptr);
  _exit(code);
}

}  // namespace

int main(int argc, char** argv) {
  tt::ocl::EnlargeDriverThreadStacks();  // before any OpenCL call (tensortune_main.cpp)
  int threads = 0;
  // Serialized: rank 0's pulse sends from its own thread, through the channel's lock.
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &threads);
  if (threads < MPI_THREAD_SERIALIZED) {
    std::cerr << "tensortune-mpi: error: this MPI library does not allow MPI calls from more than one thread "
                 "(MPI_THREAD_SERIALIZED), which rank 0's pulse to the worker ranks needs\n";
    Leave(3, true);
  }
  tt::RankChannel channel;
  if (channel.size() < 2) {
    std::cerr << "tensortune-mpi: error: needs 2 or more ranks (mpirun -n 3 tensortune-mpi ...): rank 0 tunes and "
                 "records, the others measure; without mpirun, run tensortune\n";
    Leave(2, true);
  }
  const int local_index = WorkerIndexOnHost(channel.rank());
  if (channel.rank() != 0) {
    const auto end = tt::ServeAsWorkerRank(channel, DeviceSpecOf(argc, argv), local_index, Hostname());
    Leave(end.exit_code, end.finalize);
  }

  tt::RankRoster roster(channel.size());
  int code = 0;
  {
    const tt::RankZeroPulse pulse(channel, roster);  // until the worker ranks are told to stop
    tt::SetDeviceMeasurerFactory([&](const tt::OpenClMeasurerOptions& options) {
      return std::make_unique<tt::RankMeasurer>(channel, roster, options, std::cerr);
    });
    code = TensortuneMain(argc, argv);
  }
  Leave(code, tt::StopWorkerRanks(channel, roster));
}
