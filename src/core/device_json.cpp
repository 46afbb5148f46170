#include "core/device_json.h"

#include <nlohmann/json.hpp>

namespace tt {

nlohmann::json DeviceToJson(const DeviceInfo& d) {
  return {{"platform", d.platform},
          {"name", d.name},
          {"driver_version", d.driver_version},
          {"type", d.type},
          {"compute_units", d.compute_units},
          {"max_work_group_size", d.max_work_group_size},
          {"local_mem_bytes", d.local_mem_bytes},
          {"global_mem_bytes", d.global_mem_bytes},
          {"native_float_width", d.native_float_width}};
}

DeviceInfo DeviceFromJson(const nlohmann::json& j) {
  DeviceInfo d;
  d.platform = j.at("platform").get<std::string>();
  d.name = j.at("name").get<std::string>();
  d.driver_version = j.at("driver_version").get<std::string>();
  d.type = j.at("type").get<std::string>();
  d.compute_units = j.value("compute_units", 0u);
  d.max_work_group_size = j.at("max_work_group_size").get<size_t>();
  d.local_mem_bytes = j.at("local_mem_bytes").get<size_t>();
  d.global_mem_bytes = j.value("global_mem_bytes", size_t{0});
  d.native_float_width = j.value("native_float_width", 0u);
  return d;
}

}  // namespace tt
