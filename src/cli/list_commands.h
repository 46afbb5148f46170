#pragma once
#include <iosfwd>

namespace tt {

int RunDevices(std::ostream& out);    // `tensortune devices`
int RunTemplates(std::ostream& out);  // `tensortune templates`

}  // namespace tt
