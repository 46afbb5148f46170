#include "cli/whole_file.h"

#include <filesystem>
#include <fstream>

#include "core/errors.h"

namespace tt {

void WriteWholeFile(const std::string& path, const std::string& text) {
  const std::string partial = path + ".partial";
  {
    std::ofstream file(partial, std::ios::binary);
    file << text;
    file.close();
    if (!file) {
      std::error_code ec;
      std::filesystem::remove(partial, ec);
      throw UserError("cannot write " + path);
    }
  }
  std::error_code ec;
  std::filesystem::rename(partial, path, ec);
  if (ec) throw UserError("cannot write " + path + ": " + ec.message());
}

}  // namespace tt
