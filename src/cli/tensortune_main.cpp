#include <cstdlib>
#include <iostream>

#include "cli/cli_main.h"
#include "cli/mpi_launch.h"
#include "ocl/driver_threads.h"

int main(int argc, char** argv) {
  // Only the plain program: tensortune-mpi runs TensortuneMain on its rank 0 under MPI.
  if (const auto launch = tt::DetectMpiLaunch([](const char* name) { return std::getenv(name); })) {
    std::cerr << tt::MpiLaunchRefusal(*launch) << "\n";
    return 2;
  }
  tt::ocl::EnlargeDriverThreadStacks();  // before any OpenCL call: run-network runs tuned kernels here
  return TensortuneMain(argc, argv);
}
