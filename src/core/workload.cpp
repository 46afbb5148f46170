#include "core/workload.h"

#include <charconv>
#include <stdexcept>

#include "core/errors.h"

namespace tt {

int64_t Workload::Dim(std::string_view name) const {
  for (const auto& [n, v] : dims)
    if (n == name) return v;
  throw std::out_of_range("workload " + Key() + " has no dimension '" + std::string(name) + "'");
}

bool IsWindowDim(std::string_view name) {
  return name == "kh" || name == "kw" || name == "stride" || name == "dilation";
}

bool SameWindow(const Workload& a, const Workload& b) {
  const auto window_of = [](const Workload& w) {
    std::vector<std::pair<std::string, int64_t>> window;
    for (const auto& dim : w.dims)
      if (IsWindowDim(dim.first)) window.push_back(dim);
    return window;
  };
  return window_of(a) == window_of(b);
}

std::string Workload::Key() const {
  std::string key = op + ":";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) key += ',';
    key += dims[i].first + "=" + std::to_string(dims[i].second);
  }
  return key;
}

Workload Workload::FromKey(std::string_view key) {
  const auto colon = key.find(':');
  if (colon == std::string_view::npos || colon == 0)
    throw UserError("malformed workload key '" + std::string(key) + "'");
  Workload w{std::string(key.substr(0, colon)), {}};
  std::string_view rest = key.substr(colon + 1);
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const auto eq = item.find('=');
    int64_t value = 0;
    if (eq == std::string_view::npos || eq == 0 ||
        std::from_chars(item.data() + eq + 1, item.data() + item.size(), value).ptr != item.data() + item.size())
      throw UserError("malformed workload key '" + std::string(key) + "'");
    w.dims.emplace_back(std::string(item.substr(0, eq)), value);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return w;
}

}  // namespace tt
