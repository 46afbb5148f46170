#pragma once
#include <iosfwd>

namespace tt {

int RunDevices(std::ostream& out);    // `tensortune devices`
int RunTemplates(std::ostream& out);  // `tensortune templates`
int RunTuners(std::ostream& out);     // `tensortune tuners`: each with its options

}  // namespace tt
