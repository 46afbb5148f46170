#pragma once
// A user's OpenCL kernel to tune, Kernel Tuner's way: its source and name, the problem size,
// the arguments (types, sizes, data), the tunable parameters with restrictions, the grid
// divisors and block size names, and what a right answer is. Read from the JSON of
// `tensortune tune --kernel SPEC.json` (docs/python.md gives the format), which the Python
// module writes too; the worker process reads the staged form of the same JSON.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tt {

// Where an array's contents come from (or what it must hold after the kernel ran).
struct UserKernelData {
  enum class Kind { kRandom, kZeros, kFile, kValues };
  Kind kind = Kind::kZeros;
  std::string file;            // kFile: raw little-endian elements of the argument's type
  std::vector<double> values;  // kValues
};

struct UserKernelArg {
  std::string type;  // "float32", "int32", ... (Numpy's names)
  size_t element_bytes = 4;
  bool scalar = false;
  size_t elements = 1;  // arrays: how many elements
  double value = 0;     // scalars
  UserKernelData data;
  std::optional<UserKernelData> answer;  // arrays only: the contents after the kernel ran
};

struct UserTuneParam {
  std::string name;
  std::vector<std::string> labels;  // the values as -D writes them ("128", "0.5", "float4")
  std::vector<double> numbers;      // the values as restrictions see them; NaN for text
  bool integers = true;
};

struct UserKernelSpec {
  std::string kernel_name;
  std::string source;
  std::vector<int64_t> problem_size;  // 1 to 3 extents
  std::vector<UserKernelArg> arguments;
  std::vector<UserTuneParam> tune_params;
  std::vector<std::string> restrictions;
  // Configs allowed by a restriction the JSON cannot express (a Python callable), as value
  // indices per parameter; empty: no such restriction.
  std::vector<std::vector<uint32_t>> valid_configs;
  std::array<std::vector<std::string>, 3> grid_div;  // expressions; empty: the block size name
  std::array<std::string, 3> block_size_names{"block_size_x", "block_size_y", "block_size_z"};
  double atol = 1e-6;
  int iterations = 7;
  std::string compiler_options;
  // The config whose outputs are the answer when no answer is given (parameter values in
  // tune_params order, as labels); empty: no such check.
  std::vector<std::string> reference_config;
  // Staged form only: how the worker builds and launches the reference config.
  std::string reference_options;
  std::array<size_t, 3> reference_global{1, 1, 1}, reference_local{1, 1, 1};

  bool HasAnswer() const;
};

// Parses the JSON of a spec; relative file names are taken from `base_dir`. Throws UserError
// naming the problem (a missing field, a type that is not known, a data file of the wrong
// size, a restriction that does not parse).
UserKernelSpec ParseUserKernelSpec(std::string_view json_text, const std::string& base_dir);
// The spec as the worker reads it: the source inline, every file name absolute.
std::string StagedSpecJson(const UserKernelSpec& spec);

// The bytes of an argument's data (`data`, or an answer), `seed` drawing random values.
// Throws UserError when a file cannot be read or has the wrong size.
std::vector<unsigned char> ArgumentBytes(const UserKernelArg& arg, const UserKernelData& data, uint64_t seed);
// The scalar's bytes, in its type.
std::vector<unsigned char> ScalarBytes(const UserKernelArg& arg);
// Element `i` of an array of `type` held in `bytes`, as a double.
double ElementAt(const std::string& type, const unsigned char* bytes, size_t i);

}  // namespace tt
