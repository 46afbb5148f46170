// Tier: unit
// The plain tensortune started by an MPI launcher refuses and names tensortune-mpi: the detection
// on given environments (the program itself: mpi_refusal_test.cpp).
#include "cli/mpi_launch.h"

#include <gtest/gtest.h>

#include <map>

namespace tt {
namespace {

std::optional<MpiLaunch> Detect(const std::map<std::string, std::string>& environment) {
  return DetectMpiLaunch([&](const char* name) -> const char* {
    const auto it = environment.find(name);
    return it == environment.end() ? nullptr : it->second.c_str();
  });
}

TEST(MpiLaunch, EachLauncherThatStartsSeveralProcessesIsDetected) {
  for (const char* variable :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MV2_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    const auto launch = Detect({{variable, "3"}});
    ASSERT_TRUE(launch) << variable;
    EXPECT_EQ(launch->variable, variable);
    EXPECT_EQ(launch->world_size, 3);
  }
}

TEST(MpiLaunch, AWorldOfOneNoLauncherOrNoNumberIsNotAnMpiLaunch) {
  EXPECT_FALSE(Detect({}));
  EXPECT_FALSE(Detect({{"OMPI_COMM_WORLD_SIZE", "1"}}));
  EXPECT_FALSE(Detect({{"PMI_SIZE", ""}}));
  EXPECT_FALSE(Detect({{"PMI_SIZE", "3x"}}));
  // A batch script of a 3-task allocation runs one process: SLURM_NTASKS alone is no launch.
  EXPECT_FALSE(Detect({{"SLURM_NTASKS", "3"}, {"SLURM_PROCID", "0"}}));
  // Only the ranks' own variables tell: PMIX_RANK and OMPI_COMM_WORLD_RANK give no size.
  EXPECT_FALSE(Detect({{"PMIX_RANK", "0"}, {"OMPI_COMM_WORLD_RANK", "0"}}));
}

TEST(MpiLaunch, TheRefusalNamesTensortuneMpiAndTheWorldSize) {
  const std::string message = MpiLaunchRefusal({"OMPI_COMM_WORLD_SIZE", 3});
  EXPECT_NE(message.find("tensortune-mpi"), std::string::npos) << message;
  EXPECT_NE(message.find("OMPI_COMM_WORLD_SIZE=3"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

}  // namespace
}  // namespace tt
