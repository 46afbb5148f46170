// The plain tensortune under an MPI launcher (Open MPI's variable set as mpirun sets it) refuses,
// names tensortune-mpi and writes nothing (the detection itself: mpi_launch_test.cpp).
#include <gtest/gtest.h>

#include "run_program.h"

namespace tt {
namespace {

TEST(MpiLaunch, ThePlainProgramUnderMpirunRefusesWithExitTwoBeforeItWritesAnything) {
  testing::ScratchDir dir;
  const auto db = dir.path() / "h.db";
  const auto r = testing::RunProgram("OMPI_COMM_WORLD_SIZE=3 " + std::string(TENSORTUNE_BIN) +
                                         " tune --op gemm --shape 8,8,8 --trials 2 --device fake --db " + db.string(),
                                     dir.path());
  testing::ExpectRefusal(r, "tensortune-mpi", db);
  // A world of one is a plain start.
  const auto one =
      testing::RunProgram("OMPI_COMM_WORLD_SIZE=1 " + std::string(TENSORTUNE_BIN) + " templates", dir.path());
  EXPECT_EQ(one.exit_code, 0) << one.err;
}

}  // namespace
}  // namespace tt
