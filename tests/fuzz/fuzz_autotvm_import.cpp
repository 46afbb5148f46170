// libFuzzer target: AutoTVM log lines through the importer's parser and mapping.
#include <cstddef>
#include <cstdint>

#include "import_fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tt::fuzz::ImportAutoTvmLog({reinterpret_cast<const char*>(data), size});
  return 0;
}
