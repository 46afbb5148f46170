// A template's version in the history (ops/kernel_template.h): the hash of its code, so that a
// comment or a reformatted line does not turn every recorded trial into another version's.
#include <gtest/gtest.h>

#include "ops/kernel_template.h"

namespace tt {
namespace {

TEST(KernelCode, CommentsAndLayoutAreNotCode) {
  const std::string written =
      "// the kernel\n"
      "__kernel void k(__global float* x) {  /* one\n"
      "   work-item */\n"
      "\tx[get_global_id(0)]   =  1.0f; // set\n"
      "\n"
      "}\n";
  const std::string reflowed = "__kernel void k(__global float* x) {\nx[get_global_id(0)] = 1.0f;\n}";
  EXPECT_EQ(KernelCode(written), reflowed);
  EXPECT_EQ(KernelCode(reflowed), reflowed);
}

TEST(KernelCode, EveryChangeOfATokenIsCode) {
  EXPECT_NE(KernelCode("x = a + 1;"), KernelCode("x = a + 2;"));
  EXPECT_NE(KernelCode("x = a b;"), KernelCode("x = ab;"));
  EXPECT_NE(KernelCode("#define N 4\nx = N;"), KernelCode("#define N 4 x = N;"));
  // A comment between two tokens still parts them, as it does for the compiler.
  EXPECT_EQ(KernelCode("int/**/x;"), "int x;");
}

TEST(KernelCode, LiteralsStayAsWritten) {
  EXPECT_EQ(KernelCode("printf(\"a  // b\");"), "printf(\"a  // b\");");
  EXPECT_EQ(KernelCode("c = '\"'; /* x */ s = \"\\\" /*\";"), "c = '\"'; s = \"\\\" /*\";");
  EXPECT_NE(KernelCode("printf(\"a  b\");"), KernelCode("printf(\"a b\");"));
  EXPECT_EQ(KernelCode("#error don't\nx;"), "#error don't\nx;");  // an open quote ends with its line
}

TEST(KernelCode, ContinuedLinesAreJoinedBeforeCommentsEnd) {
  EXPECT_EQ(KernelCode("#define TWICE(a) \\\n  ((a) + (a))\n"), "#define TWICE(a) ((a) + (a))");
  // The compiler joins the line first: the second line belongs to the comment.
  EXPECT_EQ(KernelCode("x; // note \\\ny;\nz;"), "x;\nz;");
  EXPECT_EQ(KernelCode("a \\\r\n b"), "a b");
}

TEST(KernelCode, AnEditedCommentKeepsATemplatesHash) {
  const KernelTemplate& winograd = *FindTemplate("conv2d_winograd_f4_nchwc");
  const std::string source(winograd.source());
  const std::string commented = "// a note added later\n" + source + "\n/* and one more */\n";
  EXPECT_EQ(TextHash(KernelCode(commented)), winograd.SourceHash());
  const std::string row = "ty * WM - PAD";  // the input tile's first row
  const size_t at = source.find(row);
  ASSERT_NE(at, std::string::npos);
  std::string edited = source;
  edited.replace(at, row.size(), "ty * WM - PAD - 1");
  EXPECT_NE(TextHash(KernelCode(edited)), winograd.SourceHash());
}

}  // namespace
}  // namespace tt
