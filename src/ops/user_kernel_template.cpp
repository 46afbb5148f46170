#include "ops/user_kernel_template.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "core/errors.h"
#include "space/knob.h"

namespace tt {
namespace {

constexpr double kDefaultBlock[3] = {256, 1, 1};  // Kernel Tuner's block size when not a parameter

}  // namespace

UserKernelTemplate::UserKernelTemplate(UserKernelSpec spec) : spec_(std::move(spec)) {
  for (const UserTuneParam& p : spec_.tune_params) names_.push_back(p.name);
  for (const std::string& r : spec_.restrictions) restrictions_.emplace_back(r, names_);
  // Grid divisors may name block sizes that are not parameters: they stand at the default.
  std::vector<std::string> div_names = names_;
  for (const std::string& b : spec_.block_size_names) div_names.push_back(b);
  for (int d = 0; d < 3; ++d) {
    const std::vector<std::string> divs =
        spec_.grid_div[d].empty() ? std::vector<std::string>{spec_.block_size_names[d]} : spec_.grid_div[d];
    for (const std::string& e : divs) grid_div_[d].emplace_back(e, div_names);
  }
  for (const auto& valid : spec_.valid_configs)
    if (valid.size() != spec_.tune_params.size())
      throw UserError("kernel spec: a valid config gives " + std::to_string(valid.size()) + " values for " +
                      std::to_string(spec_.tune_params.size()) + " parameters");
}

Workload UserKernelTemplate::ProblemWorkload() const {
  Workload w{kUserKernelOp, {}};
  for (size_t i = 0; i < spec_.problem_size.size(); ++i)
    w.dims.emplace_back("p" + std::to_string(i), spec_.problem_size[i]);
  return w;
}

std::string UserKernelTemplate::IdentityHash() const {
  nlohmann::json j;
  j["source"] = spec_.source;
  std::vector<std::string> types;
  for (const UserKernelArg& a : spec_.arguments) types.push_back(a.type + (a.scalar ? "" : "*"));
  j["arguments"] = types;
  j["block_size_names"] = spec_.block_size_names;
  j["grid_div"] = spec_.grid_div;
  j["compiler_options"] = spec_.compiler_options;
  return TextHash(j.dump());
}

std::string UserKernelTemplate::SpaceJson() const {
  nlohmann::json knobs = nlohmann::json::array();
  for (const UserTuneParam& p : spec_.tune_params) {
    std::vector<int64_t> values;
    for (size_t i = 0; i < p.labels.size(); ++i)
      values.push_back(p.integers ? static_cast<int64_t>(p.numbers[i]) : static_cast<int64_t>(i));
    knobs.push_back({{"name", p.name},
                     {"kind", p.integers ? "discrete" : "categorical"},
                     {"values", values},
                     {"labels", p.labels}});
  }
  return nlohmann::json{{"knobs", knobs}}.dump();
}

ConfigSpace UserKernelTemplate::Space(const Workload&, const DeviceLimits& limits) const {
  ConfigSpace space;
  for (const UserTuneParam& p : spec_.tune_params) {
    std::vector<int64_t> values;
    for (size_t i = 0; i < p.labels.size(); ++i)
      values.push_back(p.integers ? static_cast<int64_t>(p.numbers[i]) : static_cast<int64_t>(i));
    space.AddKnob(p.integers ? Knob::Discrete(p.name, values) : Knob::Categorical(p.name, values));
  }
  const size_t max_block = limits.max_work_group_size;
  space.AddConstraint([this, max_block](const ConfigSpace& s, const Config& c) -> std::optional<std::string> {
    const std::vector<double> numbers = Numbers(s, c);
    for (const Restriction& r : restrictions_)
      if (!r.Holds(numbers)) return "restriction " + r.text() + " fails";
    const LaunchGeometry g = GeometryOf(numbers);
    const size_t block = g.local[0] * g.local[1] * g.local[2];
    if (max_block > 0 && block > max_block)
      return "block of " + std::to_string(block) + " threads exceeds the device's " + std::to_string(max_block);
    return std::nullopt;
  });
  if (!spec_.valid_configs.empty()) {
    auto valid =
        std::make_shared<std::set<std::vector<uint32_t>>>(spec_.valid_configs.begin(), spec_.valid_configs.end());
    space.AddConstraint([this, valid](const ConfigSpace& s, const Config& c) -> std::optional<std::string> {
      std::vector<uint32_t> indices;
      const std::vector<std::string> labels = Labels(s, c);
      for (size_t i = 0; i < labels.size(); ++i) {
        const auto& all = spec_.tune_params[i].labels;
        indices.push_back(static_cast<uint32_t>(std::find(all.begin(), all.end(), labels[i]) - all.begin()));
      }
      if (valid->count(indices)) return std::nullopt;
      return "the restriction function rules it out";
    });
  }
  return space;
}

std::vector<std::string> UserKernelTemplate::Labels(const ConfigSpace& space, const Config& config) const {
  std::vector<std::string> labels;
  for (size_t i = 0; i < spec_.tune_params.size(); ++i) {
    const UserTuneParam& p = spec_.tune_params[i];
    const int64_t value = space.Scalar(config, p.name);
    if (p.integers) {
      labels.push_back(std::to_string(value));
    } else {
      labels.push_back(p.labels.at(static_cast<size_t>(value)));
    }
  }
  return labels;
}

std::vector<double> UserKernelTemplate::Numbers(const ConfigSpace& space, const Config& config) const {
  std::vector<double> numbers;
  for (const UserTuneParam& p : spec_.tune_params) {
    const int64_t value = space.Scalar(config, p.name);
    numbers.push_back(p.integers ? static_cast<double>(value) : p.numbers.at(static_cast<size_t>(value)));
  }
  return numbers;
}

LaunchGeometry UserKernelTemplate::GeometryOf(const std::vector<double>& numbers) const {
  std::vector<double> with_blocks = numbers;
  LaunchGeometry g;
  g.dims = 3;
  double block[3];
  for (int d = 0; d < 3; ++d) {
    const auto it = std::find(names_.begin(), names_.end(), spec_.block_size_names[d]);
    block[d] = it == names_.end() ? kDefaultBlock[d] : numbers[static_cast<size_t>(it - names_.begin())];
    with_blocks.push_back(block[d]);
  }
  for (int d = 0; d < 3; ++d) {
    double divisor = 1;
    for (const Restriction& e : grid_div_[d]) divisor *= e.Evaluate(with_blocks);
    const double extent =
        d < static_cast<int>(spec_.problem_size.size()) ? static_cast<double>(spec_.problem_size[d]) : 1;
    const double grid = divisor > 0 && std::isfinite(divisor) ? std::ceil(extent / divisor) : 1;
    const double local = std::isfinite(block[d]) && block[d] >= 1 ? block[d] : 1;
    g.local[d] = static_cast<size_t>(local);
    g.global[d] = static_cast<size_t>(std::max(1.0, grid)) * g.local[d];
  }
  return g;
}

std::string UserKernelTemplate::OptionsOf(const std::vector<std::string>& labels,
                                          const std::vector<double>& numbers) const {
  const LaunchGeometry g = GeometryOf(numbers);
  std::string options;
  const auto define = [&](const std::string& name, const std::string& value) {
    options += (options.empty() ? "" : " ") + std::string("-D") + name + "=" + value;
  };
  const char* grid_names[] = {"grid_size_x", "grid_size_y", "grid_size_z"};
  for (int d = 0; d < 3; ++d) define(grid_names[d], std::to_string(g.global[d] / g.local[d]));
  for (int d = 0; d < 3; ++d)
    if (std::find(names_.begin(), names_.end(), spec_.block_size_names[d]) == names_.end())
      define(spec_.block_size_names[d], std::to_string(g.local[d]));
  for (size_t i = 0; i < labels.size(); ++i) define(names_[i], labels[i]);
  define("kernel_tuner", "1");
  if (!spec_.compiler_options.empty()) options += " " + spec_.compiler_options;
  return options;
}

std::string UserKernelTemplate::BuildOptions(const Workload&, const ConfigSpace& space, const Config& config) const {
  return OptionsOf(Labels(space, config), Numbers(space, config));
}

LaunchGeometry UserKernelTemplate::Geometry(const Workload&, const ConfigSpace& space, const Config& config) const {
  return GeometryOf(Numbers(space, config));
}

void UserKernelTemplate::Reference(const Workload&, const std::vector<const float*>&, float*) const {
  throw std::logic_error("a user's kernel has no CPU reference: its answer is given or its reference config's");
}

void UserKernelTemplate::Stage(const std::string& path) {
  UserKernelSpec staged = spec_;
  if (!spec_.reference_config.empty()) {
    std::vector<double> numbers;
    for (size_t i = 0; i < spec_.tune_params.size(); ++i) {
      const UserTuneParam& p = spec_.tune_params[i];
      const auto it = std::find(p.labels.begin(), p.labels.end(), spec_.reference_config[i]);
      if (it == p.labels.end())
        throw UserError("kernel spec: reference_config gives " + p.name + " = " + spec_.reference_config[i] +
                        ", not one of its values");
      numbers.push_back(p.numbers[static_cast<size_t>(it - p.labels.begin())]);
    }
    const LaunchGeometry g = GeometryOf(numbers);
    staged.reference_options = OptionsOf(spec_.reference_config, numbers);
    staged.reference_global = g.global;
    staged.reference_local = g.local;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << StagedSpecJson(staged);
  if (!out.flush()) throw EnvironmentError("cannot write the staged kernel spec '" + path + "'");
  staged_path_ = path;
}

}  // namespace tt
