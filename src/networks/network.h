#pragma once
// Networks as data: a list of layers (operator + shape, as `tune --op --shape` takes them),
// built in (src/networks/zoo/*.json, embedded) or read from a user's JSON file of the same form:
//   {"name": "mynet", "layers": [
//     {"name": "conv1", "op": "conv2d", "shape": "n={batch},ci=3,h=224,w=224,co=64,kh=7,kw=7,stride=2,pad=3"},
//     {"name": "fc", "op": "gemm", "shape": "{batch},1000,512", "repeat": 1}]}
// "{batch}" (or "{batch*K}") in a shape becomes the batch size; "flags" switch 0/1 dimensions
// ("transpose_a"); "repeat" says how often the layer occurs.
// An ONNX model (onnx_model.h) becomes a network of the same form, its shapes fixed at load.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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

// A node of an imported model that no task stands for: listed, never dropped.
struct UntunedLayer {
  std::string name;             // the node's name ("#12 (Relu)" when it has none)
  std::string op;               // its operator: "MaxPool", "com.microsoft.FusedConv" outside ONNX's own
  std::string why;              // "pooling", "grouped convolution (4 groups of 16 channels)", ...
  std::optional<double> flops;  // an estimate; none when unknown
};

struct Network {
  std::string name;
  std::string description;
  std::vector<NetworkLayer> layers;
  // Set when the shapes were fixed at load (an ONNX model): the batch they hold, the only one
  // NetworkTasks takes.
  std::optional<int64_t> batch;
  std::vector<UntunedLayer> untuned;  // nodes of an imported model that are not tuned
};

// How to fix the dynamic dimensions of an imported model (built-in and JSON networks take their
// batch in NetworkTasks and refuse input shapes).
struct NetworkLoadOptions {
  // --batch: the value of every input's dynamic leading dimension (1 when not given); an input
  // whose leading dimension is fixed keeps it, and a given batch must then equal it.
  std::optional<int64_t> batch;
  // --input-shape name=dims: every dimension of the input of that name.
  std::map<std::string, std::vector<int64_t>> input_shapes;
};

// "name=1,3,224,224" as --input-shape takes it; throws UserError when malformed.
std::pair<std::string, std::vector<int64_t>> ParseInputShape(std::string_view text);

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
// A built-in network by name, else a file at that path: an ONNX model (a .onnx file, or any
// file that is not JSON) or a JSON network. Throws UserError when neither, naming the problem
// (for an ONNX model the node at fault), before anything is written anywhere.
Network LoadNetwork(const std::string& name_or_path, const NetworkLoadOptions& options = {});
std::vector<Network> BuiltinNetworks();

// The network's distinct workloads at this batch size, in order of first occurrence.
// Throws UserError for a batch below 1, a shape that the batch makes invalid, or a batch other
// than the one a network's shapes were fixed at (Network::batch).
std::vector<NetworkTask> NetworkTasks(const Network& network, int64_t batch);

// The FLOPs of one computation of a workload (as its sketches count them).
double WorkloadFlops(const Workload& workload);

}  // namespace tt
