#pragma once
// tensortune.run_network and run_operator: a tuned network, or one operator, run on numpy arrays
// through tensortune::NetworkRunner (the runtime's network runner, as `tensortune run-network`).
#include <pybind11/pybind11.h>

namespace tt::python {

// `options`: network (a name, JSON file or ONNX model) or op, shape and flags (one layer);
// db or pack; device, batch, min_runs, min_time, seed, exact_only, binary_cache. `inputs`: per
// layer name, a list of float32 arrays (None: the previous layer's output or random values).
// Returns a dict: device, verified, runs, latency_s, kernels_s, and per layer its name,
// workload, sketch, config, origin, note, check, chained, time_s and output (an array).
// Throws UserError (bad input, nothing usable recorded) or EnvironmentError (OpenCL).
pybind11::dict RunNetworkArrays(const pybind11::dict& options, const pybind11::dict& inputs);

}  // namespace tt::python
