#pragma once
// Exceptions are for bad user input and a broken environment; failures that a tuning run
// expects (a config that does not compile, crashes, ...) are MeasureStatus values instead.
#include <stdexcept>

namespace tt {

// Bad input from the user: unknown operator, malformed shape, unusable --db path, ...
class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Something outside tensortune is broken: no OpenCL platform, a worker that cannot start, ...
class EnvironmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tt
