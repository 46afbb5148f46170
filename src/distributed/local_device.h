#pragma once
// --device local: one device per worker rank of a host, from one command line for all ranks.
#include <string>
#include <vector>

#include "core/device_info.h"

namespace tt {

// "local" is the rank's index among the worker ranks of its host, as a flat device index;
// "local:<fragment>" the index-th of `devices` whose name or platform contains the fragment
// (case-insensitive), so that one rank per GPU leaves the CPU device out. Any other spec is
// returned as it is. Throws UserError when the host has too few such devices.
std::string ResolveLocalDevice(const std::string& spec, int local_index, const std::vector<DeviceInfo>& devices);

bool NamesLocalDevice(const std::string& spec);

}  // namespace tt
