#pragma once
// The history database as a config source (component `history`, target tensortune::history;
// links SQLite): the records `tensortune tune` and `tune-network` wrote, read-only.
#include <memory>
#include <string>

#include "tensortune/runtime.h"

namespace tensortune {

// Throws Error (kDatabase) when `path` is not an existing tensortune database; never creates
// one. For a workload it finds, in order: the fastest verified trial on this device (exact),
// else a config adapted from the most similar workload recorded on this device, else what
// devices of the same name (other drivers), then of the same type, then any device recorded.
TENSORTUNE_API std::shared_ptr<const ConfigSource> OpenHistory(const std::string& path);

}  // namespace tensortune
