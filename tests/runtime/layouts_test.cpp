// tensortune/layouts.h: the host-side conversions between plain layouts and the blocked ones
// sketches read, and their refusals of data that does not fit.
#include "tensortune/layouts.h"

#include "runtime_test_support.h"

namespace tt {
namespace {

using tensortune::ErrorCode;
using testing::CodeOf;

TEST(Layouts, BlockAndUnblockChannelsAndRefuseWrongSizes) {
  const std::vector<int64_t> dims{2, 20, 3, 1};
  std::vector<float> plain(2 * 20 * 3);
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<float>(i + 1);
  const auto blocked = tensortune::ToLayout(plain, tensortune::Layout::kNCHW16c, dims);
  EXPECT_EQ(blocked.size(), tensortune::LayoutElements(tensortune::Layout::kNCHW16c, dims));
  EXPECT_EQ(blocked.size(), 2u * 32 * 3);
  EXPECT_EQ(blocked[1], plain[3]);                      // lane 1 of pixel 0 is channel 1's first element
  EXPECT_EQ(blocked[(0 * 2 + 1) * 3 * 16 + 15], 0.0f);  // channel 31 does not exist: zero
  EXPECT_EQ(tensortune::FromLayout(blocked, tensortune::Layout::kNCHW16c, dims), plain);
  EXPECT_EQ(tensortune::FromLayout(tensortune::ToLayout(plain, tensortune::Layout::kOIHW16o, dims),
                                   tensortune::Layout::kOIHW16o, dims),
            plain);
  EXPECT_EQ(CodeOf([&] {
              tensortune::ToLayout({1, 2, 3}, tensortune::Layout::kNCHW16c, dims);
            }),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([&] { tensortune::ToLayout(plain, tensortune::Layout::kNCHW16c, {120}); }),
            ErrorCode::kInvalidArgument);
  EXPECT_STREQ(tensortune::ToString(tensortune::Layout::kOIHW16o), "OIHW16o");
  // A K x N matrix in panels of 16 columns: [ceil(N/16)][K][16].
  const std::vector<int64_t> kn{3, 20};
  const std::vector<float> matrix(plain.begin(), plain.begin() + 60);
  const auto panels = tensortune::ToLayout(matrix, tensortune::Layout::kKN16n, kn);
  EXPECT_EQ(panels.size(), tensortune::LayoutElements(tensortune::Layout::kKN16n, kn));
  EXPECT_EQ(panels.size(), 2u * 3 * 16);
  EXPECT_EQ(panels[1 * 16 + 2], matrix[1 * 20 + 2]);             // row 1, column 2: panel 0
  EXPECT_EQ(panels[(1 * 3 + 2) * 16 + 3], matrix[2 * 20 + 19]);  // row 2, column 19: panel 1, lane 3
  EXPECT_EQ(panels[(1 * 3 + 2) * 16 + 4], 0.0f);                 // column 20 does not exist: zero
  EXPECT_EQ(tensortune::FromLayout(panels, tensortune::Layout::kKN16n, kn), matrix);
  EXPECT_EQ(CodeOf([&] {
              tensortune::ToLayout(matrix, tensortune::Layout::kKN16n, {3, 4, 5});
            }),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(tensortune::PlainLayout(tensortune::Layout::kKN16n), tensortune::Layout::kRowMajor);
  EXPECT_EQ(tensortune::PlainLayout(tensortune::Layout::kNCHW16c), tensortune::Layout::kNCHW);
}

}  // namespace
}  // namespace tt
