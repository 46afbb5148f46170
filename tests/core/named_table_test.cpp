#include "core/named_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tt {
namespace {

struct Entry {
  const char* name;
  int value;
};

TEST(NamedTable, FindsByNameAndRefusesAnUnknownOneWithTheKnownNames) {
  const Entry table[] = {{"round-robin", 1}, {"ucb", 2}};
  EXPECT_EQ(FindNamed(table, "scheduler", "ucb").value, 2);
  EXPECT_EQ(NamesOf(table), (std::vector<std::string>{"round-robin", "ucb"}));
  try {
    FindNamed(table, "scheduler", "fifo");
    ADD_FAILURE() << "an unknown name was found";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "unknown scheduler 'fifo' (known: round-robin, ucb)");
  }
}

}  // namespace
}  // namespace tt
