#include "core/workload.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "core/errors.h"

namespace tt {
namespace {

TEST(Workload, KeyAndFromKeyRoundTripInTheOperatorsOrder) {
  const Workload w{"gemm", {{"m", 512}, {"n", 1024}, {"k", 64}}};
  EXPECT_EQ(w.Key(), "gemm:m=512,n=1024,k=64");
  EXPECT_EQ(Workload::FromKey(w.Key()), w);
  EXPECT_EQ(w.Dim("n"), 1024);
  EXPECT_THROW(w.Dim("batch"), std::out_of_range);
  EXPECT_EQ(Workload::FromKey("selftest:").dims.size(), 0u);
}

TEST(Workload, MalformedKeysAreUserErrors) {
  for (const char* key : {"", "gemm", ":m=1", "gemm:m", "gemm:=1", "gemm:m=x", "gemm:m=1x", "gemm:m=1,,n=2"})
    EXPECT_THROW(Workload::FromKey(key), UserError) << key;
}

}  // namespace
}  // namespace tt
