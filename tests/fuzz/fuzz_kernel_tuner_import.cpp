// libFuzzer target: Kernel Tuner cache files through the importer's parser.
#include <cstddef>
#include <cstdint>

#include "import_fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tt::fuzz::ImportKernelTunerCache({reinterpret_cast<const char*>(data), size});
  return 0;
}
