#pragma once
// Networks as data: a list of layers (operator + shape, as `tune --op --shape` takes them),
// built in (src/networks/zoo/*.json, embedded) or read from a user's JSON file of the same form:
//   {"name": "mynet", "layers": [
//     {"name": "conv1", "op": "conv2d", "shape": "n={batch},ci=3,h=224,w=224,co=64,kh=7,kw=7,stride=2,pad=3"},
//     {"name": "fc", "op": "gemm", "shape": "{batch},1000,512", "repeat": 1}]}
// "{batch}" (or "{batch*K}") in a shape becomes the batch size; "flags" switch 0/1 dimensions
// ("transpose_a"); "repeat" says how often the layer occurs.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/workload.h"

namespace tt {

struct NetworkLayer {
  std::string name;
  std::string op;
  std::string shape;  // may hold "{batch}"
  std::vector<std::string> flags;
  int64_t repeat = 1;
};

struct Network {
  std::string name;
  std::string description;
  std::vector<NetworkLayer> layers;
};

// A distinct workload of a network and how often it occurs (identical layers merged).
struct NetworkTask {
  Workload workload;
  int64_t weight = 0;
  std::vector<std::string> layers;  // the names of the layers it stands for
};

// Parses a network description; `source` names it in messages. Throws UserError naming the
// line and column of a syntax error, or the layer and field at fault; every layer's operator
// and shape are checked (at batch 1).
Network ParseNetwork(std::string_view json_text, std::string_view source);
// A built-in network by name, else a JSON file at that path. Throws UserError when neither.
Network LoadNetwork(const std::string& name_or_path);
std::vector<Network> BuiltinNetworks();

// The network's distinct workloads at this batch size, in order of first occurrence.
// Throws UserError for a batch below 1 or a shape that the batch makes invalid.
std::vector<NetworkTask> NetworkTasks(const Network& network, int64_t batch);

}  // namespace tt
