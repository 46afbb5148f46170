#include <cstdlib>
#include <iostream>

#include "cli/cli_main.h"
#include "cli/mpi_launch.h"

int main(int argc, char** argv) {
  // Only the plain program: tensortune-mpi runs TensortuneMain on its rank 0 under MPI.
  if (const auto launch = tt::DetectMpiLaunch([](const char* name) { return std::getenv(name); })) {
    std::cerr << tt::MpiLaunchRefusal(*launch) << "\n";
    return 2;
  }
  return TensortuneMain(argc, argv);
}
