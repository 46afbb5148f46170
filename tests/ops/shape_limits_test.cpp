// Sizes too large for any device are refused when the shape is parsed, whatever their
// products would wrap around to in 64 bits.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/errors.h"
#include "ops/kernel_template.h"

namespace tt {
namespace {

TEST(ElementCount, SaturatesInsteadOfWrappingAround) {
  EXPECT_EQ(ElementCount({4, 8, 16}), 512u);
  EXPECT_EQ(ElementCount({}), 1u);
  EXPECT_EQ(ElementCount({int64_t{1} << 32, int64_t{1} << 32}), SIZE_MAX);                      // 2^64 would read 0
  EXPECT_EQ(ElementCount({4, 2147483647, 2147483647}), 4 * uint64_t{2147483647} * 2147483647);  // int64: negative
  EXPECT_EQ(ElementCount({-1, 4}), SIZE_MAX);
}

TEST(ParseWorkload, RefusesSizesNoDeviceCouldHold) {
  const struct {
    const char* op;
    const char* shape;
  } cases[] = {
      {"gemm", "4294967296,4294967296,4294967296"},
      {"gemm", "2147483648,1,1"},
      {"gemm", "65536,65536,1"},
      {"batch_matmul", "4294967296,65536,65536,65536"},
      {"batch_matmul", "2048,1024,1024,1"},
      {"conv2d", "n=1,ci=3,h=3037000500,w=3037000500,co=4,kh=3,kw=3,stride=1,pad=1"},
      {"conv2d", "n=4,ci=1073741824,h=65536,w=65536,co=1,kh=1,kw=1,stride=65536,pad=0"},
      {"conv2d", "n=1,ci=1,h=8,w=8,co=1,kh=1,kw=1,stride=1,pad=9223372036854775807"},
      {"depthwise_conv2d", "n=4,c=1,h=2147483647,w=2147483647,kh=1,kw=1,stride=2147483647,pad=0"},
      {"depthwise_conv2d", "n=1,c=1,h=8,w=8,kh=3,kw=3,stride=1,pad=1,dilation=4611686018427387904"},
  };
  for (const auto& c : cases) EXPECT_THROW(ParseWorkload(c.op, c.shape), UserError) << c.op << " " << c.shape;
  // The largest sizes that still fit are accepted.
  EXPECT_NO_THROW(ParseWorkload("gemm", "46340,46340,46340"));
  // (The channel-blocked depthwise sketch pads channels to blocks of 16.)
  EXPECT_NO_THROW(ParseWorkload("depthwise_conv2d", "n=1,c=1,h=134217727,w=1,kh=1,kw=1,stride=134217727,pad=0"));
  EXPECT_THROW(ParseWorkload("depthwise_conv2d", "n=1,c=1,h=134217728,w=1,kh=1,kw=1,stride=134217728,pad=0"),
               UserError);
}

}  // namespace
}  // namespace tt
