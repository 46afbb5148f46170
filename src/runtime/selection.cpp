// Which config runs a workload on a device: the ladder from exact records down to the
// template's default, each rung checked against the device before it is taken; and how a
// config becomes a KernelSpec.
#include <algorithm>
#include <cstdio>
#include <optional>

#include "core/errors.h"
#include "core/rng.h"
#include "ops/channel_blocking.h"
#include "ops/starting_config.h"
#include "runtime/runtime_internal.h"
#include "space/config_adapt.h"
#include "space/config_space.h"
#include "space/match_score.h"

namespace tt::runtime {

using tensortune::Candidates;
using tensortune::Choice;
using tensortune::Error;
using tensortune::ErrorCode;
using tensortune::KernelSpec;
using tensortune::Origin;

namespace {

std::string Format(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// The spec of `choice` when its template computes the workload and its config is valid on the
// device; else why not.
struct Checked {
  std::optional<KernelSpec> spec;
  std::string why_not;
};

Checked Check(const Choice& choice, const Workload& w, const DeviceInfo& device) {
  const KernelTemplate* kernel = FindTemplate(choice.kernel_template);
  if (!kernel) return {std::nullopt, "sketch " + choice.kernel_template + " is unknown to this tensortune"};
  if (kernel->op() != w.op)
    return {std::nullopt, "sketch " + choice.kernel_template + " computes " + std::string(kernel->op())};
  if (auto why = kernel->WhyNotApplicable(w)) return {std::nullopt, *why};
  const ConfigSpace space = kernel->Space(w, LimitsOf(device));
  const auto config = space.FromKey(choice.config_key);
  if (!config) return {std::nullopt, "config " + choice.config_key + " is not in this device's space"};
  if (auto why = space.WhyInvalid(*config)) return {std::nullopt, "config invalid on this device: " + *why};
  return {SpecFor(*kernel, w, space, *config, choice), ""};
}

// A valid config of the space, deterministically: the untiled one, else the first of a seeded
// random search.
std::optional<Config> DefaultConfig(const ConfigSpace& space) {
  Config untiled = UntiledConfig(space);
  if (space.IsValid(untiled)) return untiled;
  Rng rng(1);
  return DrawValidConfig(space, rng);
}

std::string Joined(const std::string& first, const std::string& second) {
  return first.empty() ? second : first + "; " + second;
}

std::string Refusal(const tensortune::PrepareOptions& options) {
  return std::string(" (least trusted origin accepted: ") + tensortune::ToString(options.least_trusted) + ")";
}

std::string Passed(const std::string& passed) { return passed.empty() ? "" : "; passed over: " + passed; }

void AddPassed(std::string& passed, const Choice& choice, const std::string& why) {
  passed += (passed.empty() ? "" : "; ") + std::string(tensortune::ToString(choice.origin)) + " " +
            choice.kernel_template + " (" + why + ")";
}

bool SameLaunches(const KernelSpec& a, const KernelSpec& b) {
  if (a.build_options != b.build_options || a.scratch_elements != b.scratch_elements ||
      a.launches.size() != b.launches.size() || a.arguments.size() != b.arguments.size())
    return false;
  for (size_t i = 0; i < a.launches.size(); ++i) {
    const auto &x = a.launches[i], &y = b.launches[i];
    if (x.kernel != y.kernel || x.dims != y.dims || x.global != y.global || x.local != y.local || x.args != y.args)
      return false;
  }
  for (size_t i = 0; i < a.arguments.size(); ++i) {
    const auto &x = a.arguments[i], &y = b.arguments[i];
    if (x.layout != y.layout || x.dims != y.dims || x.elements != y.elements || x.is_output != y.is_output)
      return false;
  }
  return true;
}

// A pack's kernel as this build launches it. A pack is code, and its manifest a claim: the
// buffers, NDRange, build options and arguments come from the workload and this build's sketch
// for the pack's config, and the claims must agree with them (anything else was not written by
// export-kernels). The pack's source is taken only when it is this build's sketch, or when the
// caller trusts the pack (`trust_source`). Throws kDamagedPack naming the difference; returns
// nothing when the config is not valid on `device` (why in `why_not`), which for a pack of
// another device is no damage.
std::optional<KernelSpec> FromPack(const KernelSpec& entry, const Workload& w, const DeviceInfo& device,
                                   const DeviceInfo& exported_for, const std::string& where, bool trust_source,
                                   std::string& why_not) {
  const std::string& sketch = entry.choice.kernel_template;
  const auto damaged = [&](const std::string& why) {
    return Error(ErrorCode::kDamagedPack, where + ": the kernel of " + entry.workload + " " + why);
  };
  const KernelTemplate* kernel = FindTemplate(sketch);
  if (!kernel) throw damaged("is of sketch " + sketch + ", which this tensortune does not have");
  if (kernel->source() != entry.source && !trust_source)  // to the byte: a pack is code
    throw damaged("differs from this tensortune's sketch " + sketch +
                  " (a pack is code: run a kernel source of another origin only when you trust it, with "
                  "PrepareOptions::trust_pack_source or run-network --trust-pack-source)");
  const Checked claimed = Check(entry.choice, w, exported_for);
  if (!claimed.spec) throw damaged("has a config that is not valid where it was exported: " + claimed.why_not);
  if (!SameLaunches(*claimed.spec, entry))
    throw damaged("does not match its config (build options, NDRange or arguments differ from what " + sketch +
                  " gives for " + entry.choice.config_key + ")");
  Checked own = Check(entry.choice, w, device);
  if (!own.spec) {
    why_not = own.why_not;
    return std::nullopt;
  }
  own.spec->source = entry.source;
  own.spec->choice = entry.choice;
  return std::move(own.spec);
}

}  // namespace

Workload ToWorkload(const tensortune::Workload& workload) {
  try {
    return ParseWorkload(workload.op, workload.shape, workload.flags);
  } catch (const UserError& e) {
    throw Error(ErrorCode::kInvalidArgument, e.what());
  }
}

tensortune::Workload ToPublic(const Workload& w) {
  tensortune::Workload out{w.op, "", {}};
  for (const auto& [name, value] : w.dims) {
    if (name == "transpose_a" || name == "transpose_b") {
      if (value) out.flags.push_back(name);
      continue;
    }
    out.shape += (out.shape.empty() ? "" : ",") + name + "=" + std::to_string(value);
  }
  // Positional operators read their dims in order.
  if (w.op == "gemm" || w.op == "batch_matmul" || w.op == "selftest") {
    out.shape.clear();
    for (const auto& [name, value] : w.dims)
      if (name != "transpose_a" && name != "transpose_b")
        out.shape += (out.shape.empty() ? "" : ",") + std::to_string(value);
  }
  return out;
}

DeviceInfo ToDeviceInfo(const tensortune::DeviceDescription& d) {
  DeviceInfo info;
  info.platform = d.platform;
  info.name = d.name;
  info.driver_version = d.driver_version;
  info.type = d.type;
  info.max_work_group_size = d.max_work_group_size;
  info.local_mem_bytes = d.local_mem_bytes;
  info.native_float_width = d.native_float_width;
  info.compute_units = d.compute_units;
  return info;
}

tensortune::DeviceDescription ToDescription(const DeviceInfo& d) {
  return {d.platform,           d.name,         d.driver_version, d.type, d.max_work_group_size, d.local_mem_bytes,
          d.native_float_width, d.compute_units};
}

tensortune::Layout ToPublic(TensorLayout layout) {
  switch (layout) {
    case TensorLayout::kRowMajor:
      return tensortune::Layout::kRowMajor;
    case TensorLayout::kNCHW:
      return tensortune::Layout::kNCHW;
    case TensorLayout::kNCHW16c:
      return tensortune::Layout::kNCHW16c;
    case TensorLayout::kOIHW:
      return tensortune::Layout::kOIHW;
    case TensorLayout::kOIHW16o:
      return tensortune::Layout::kOIHW16o;
    case TensorLayout::kWinogradF2:
      return tensortune::Layout::kWinogradF2x2;
    case TensorLayout::kWinogradF4:
      return tensortune::Layout::kWinogradF4x4;
    case TensorLayout::kKN16n:
      return tensortune::Layout::kKN16n;
  }
  return tensortune::Layout::kRowMajor;
}

TensorLayout ToInternal(tensortune::Layout layout) {
  switch (layout) {
    case tensortune::Layout::kRowMajor:
      return TensorLayout::kRowMajor;
    case tensortune::Layout::kNCHW:
      return TensorLayout::kNCHW;
    case tensortune::Layout::kNCHW16c:
      return TensorLayout::kNCHW16c;
    case tensortune::Layout::kOIHW:
      return TensorLayout::kOIHW;
    case tensortune::Layout::kOIHW16o:
      return TensorLayout::kOIHW16o;
    case tensortune::Layout::kWinogradF2x2:
      return TensorLayout::kWinogradF2;
    case tensortune::Layout::kWinogradF4x4:
      return TensorLayout::kWinogradF4;
    case tensortune::Layout::kKN16n:
      return TensorLayout::kKN16n;
  }
  return TensorLayout::kRowMajor;
}

int Rank(Origin origin) {
  switch (origin) {
    case Origin::kExact:
    case Origin::kOverride:
      return 0;
    case Origin::kSimilarWorkload:
      return 1;
    case Origin::kOtherDevice:
      return 2;
    case Origin::kDefault:
      return 3;
  }
  return 3;
}

std::string Describe(const Choice& c) {
  std::string text = std::string(tensortune::ToString(c.origin)) + ": " + c.kernel_template + " ";
  const std::string gflops = c.recorded_gflops > 0 ? Format("%.3g GFLOPS", c.recorded_gflops) : "";
  switch (c.origin) {
    case Origin::kExact:
      text += "as measured on " + c.source_device + (gflops.empty() ? "" : " (" + gflops + ")");
      break;
    case Origin::kSimilarWorkload:
      text += "adapted from " + c.source_workload + " (match score " + Format("%.2f", c.match_score) +
              (gflops.empty() ? "" : ", " + gflops + " there") + ") on " + c.source_device;
      break;
    case Origin::kOtherDevice:
      text += "recorded on " + c.source_device + " for " + c.source_workload +
              (c.match_score < 1 ? " (adapted, match score " + Format("%.2f", c.match_score) + ")" : "");
      break;
    case Origin::kDefault:
      text += "default config";
      break;
    case Origin::kOverride:
      text += "config given by the caller";
      break;
  }
  return text + (c.note.empty() ? "" : " [" + c.note + "]");
}

KernelSpec SpecFor(const KernelTemplate& kernel, const Workload& w, const ConfigSpace& space, const Config& config,
                   Choice choice) {
  KernelSpec spec;
  spec.workload = w.Key();
  choice.kernel_template = std::string(kernel.name());
  choice.config_key = space.Key(config);
  spec.flops = kernel.Flops(w);
  if (choice.origin == Origin::kExact && choice.recorded_gflops > 0 && choice.recorded_time_s <= 0)
    choice.recorded_time_s = spec.flops / (choice.recorded_gflops * 1e9);
  spec.choice = std::move(choice);
  spec.source = std::string(kernel.source());
  const LaunchPlan plan = PlanLaunch(kernel, w, space, config);
  spec.build_options = plan.build_options;
  spec.scratch_elements = plan.scratch_elements;
  const std::vector<BufferSpec> buffers = kernel.Buffers(w);
  const std::vector<BufferLayout> layouts = BufferLayouts(kernel, w);
  for (size_t i = 0; i < buffers.size(); ++i)
    spec.arguments.push_back(
        {buffers[i].name, ToPublic(layouts[i].layout), layouts[i].dims, buffers[i].elements, buffers[i].is_output});
  for (const KernelStep& step : plan.steps)
    spec.launches.push_back({step.kernel, step.geometry.dims, step.geometry.global, step.geometry.local, step.args});
  return spec;
}

KernelSpec ConversionSpec(tensortune::Layout from, tensortune::Layout to, const std::vector<int64_t>& dims) {
  using tensortune::Layout;
  const bool blocking = from == Layout::kNCHW && to == Layout::kNCHW16c;
  if (!blocking && !(from == Layout::kNCHW16c && to == Layout::kNCHW))
    throw Error(ErrorCode::kInvalidArgument, std::string("no device conversion from ") + tensortune::ToString(from) +
                                                 " to " + tensortune::ToString(to) + " (NCHW <-> NCHW16c only)");
  if (dims.size() != 4 || std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 1; }))
    throw Error(ErrorCode::kInvalidArgument, "a conversion takes four positive NCHW dimensions");
  const size_t plain = LayoutElements(TensorLayout::kNCHW, dims);
  const size_t blocked = LayoutElements(TensorLayout::kNCHW16c, dims);
  if (blocked >= (size_t{1} << 31)) throw Error(ErrorCode::kInvalidArgument, "conversion too large for int indexing");
  KernelSpec spec;
  spec.workload = std::string("layout_convert:") + tensortune::ToString(from) + "->" + tensortune::ToString(to) +
                  ":n=" + std::to_string(dims[0]) + ",c=" + std::to_string(dims[1]) + ",h=" + std::to_string(dims[2]) +
                  ",w=" + std::to_string(dims[3]);
  spec.choice.origin = Origin::kDefault;
  spec.choice.kernel_template = "layout_convert";
  spec.choice.note = std::string("layout conversion ") + tensortune::ToString(from) + " -> " + tensortune::ToString(to);
  spec.source = std::string(KernelSource("layout_convert.cl"));
  spec.build_options = "-D N=" + std::to_string(dims[0]) + " -D C=" + std::to_string(dims[1]) +
                       " -D P=" + std::to_string(dims[2] * dims[3]);
  spec.arguments = {{"in", from, dims, blocking ? plain : blocked, false},
                    {"out", to, dims, blocking ? blocked : plain, true}};
  const size_t pixels = static_cast<size_t>(dims[2] * dims[3]), blocks = static_cast<size_t>((dims[1] + 15) / 16);
  spec.launches.push_back({blocking ? "nchw_to_nchw16c" : "nchw16c_to_nchw",
                           3,
                           {pixels, blocks, static_cast<size_t>(dims[0])},
                           {0, 0, 0},
                           {0, 1}});
  return spec;
}

void CheckSpec(const KernelSpec& spec, const DeviceInfo& device, ErrorCode code) {
  const auto fail = [&](const std::string& why) { throw Error(code, "kernel spec of " + spec.workload + ": " + why); };
  if (spec.launches.empty()) fail("no kernel to launch");
  if (spec.arguments.empty()) fail("no arguments");
  if (std::count_if(spec.arguments.begin(), spec.arguments.end(), [](const auto& a) { return a.is_output; }) != 1)
    fail("not exactly one output argument");
  bool scratch_used = false;
  for (const auto& a : spec.arguments)
    if (a.elements == 0) fail("argument " + a.name + " has no elements");
  for (const auto& launch : spec.launches) {
    if (launch.kernel.empty()) fail("a launch without a kernel name");
    if (launch.dims < 1 || launch.dims > 3) fail("NDRange of " + std::to_string(launch.dims) + " dimensions");
    size_t group = 1;
    bool local_given = false;
    for (unsigned d = 0; d < 3; ++d) {
      if (launch.global[d] == 0) fail("an empty NDRange");
      if (launch.local[d] != 0) {
        local_given = true;
        if (launch.global[d] % launch.local[d] != 0) fail("a local size that does not divide the global size");
      }
      group *= std::max<size_t>(launch.local[d], 1);
    }
    if (local_given && device.max_work_group_size > 0 && group > device.max_work_group_size)
      fail("work-groups of " + std::to_string(group) + " items; " + device.name + " allows " +
           std::to_string(device.max_work_group_size));
    for (const int arg : launch.args) {
      if (arg == tensortune::kScratchArgument) {
        scratch_used = true;
        continue;
      }
      if (arg < 0 || static_cast<size_t>(arg) >= spec.arguments.size()) fail("an argument index out of range");
    }
  }
  if (scratch_used != (spec.scratch_elements > 0)) fail("a scratch buffer that is not both sized and used");
}

KernelSpec DefaultSpec(const Workload& w, const DeviceInfo& device, const std::string& kernel_template,
                       const std::string& why, DefaultKind kind) {
  std::vector<const KernelTemplate*> kernels;
  try {
    kernels = kernel_template.empty() ? ApplicableTemplates(w)
                                      : std::vector<const KernelTemplate*>{&PickTemplate(w, kernel_template)};
  } catch (const UserError& e) {
    throw Error(ErrorCode::kInvalidArgument, e.what());
  }
  Choice choice;
  choice.origin = Origin::kDefault;
  // The first sketch whose tiles the device class knows, else the first with a starting config.
  if (kind == DefaultKind::kStarting) {
    std::optional<KernelSpec> first;
    for (const KernelTemplate* kernel : kernels) {
      const ConfigSpace space = kernel->Space(w, LimitsOf(device));
      const auto start = DeviceStartingConfig(*kernel, space, device, &w);
      if (!start || (first && !start->tiles_known)) continue;
      choice.note = Joined(why, "the device's starting config: " + start->note);
      first = SpecFor(*kernel, w, space, start->config, choice);
      if (start->tiles_known) break;
    }
    if (first) return std::move(*first);
  }
  for (const KernelTemplate* kernel : kernels) {
    const ConfigSpace space = kernel->Space(w, LimitsOf(device));
    if (const auto config = DefaultConfig(space)) {
      choice.note = Joined(why, "untuned");
      return SpecFor(*kernel, w, space, *config, choice);
    }
  }
  throw Error(ErrorCode::kInvalidArgument,
              "no sketch of " + w.op + " has a valid config for " + w.Key() + " on " + device.name);
}

KernelSpec OverrideSpec(const Workload& w, const DeviceInfo& device, const std::string& kernel_template,
                        const std::string& config_key) {
  Choice choice;
  choice.origin = Origin::kOverride;
  choice.kernel_template = kernel_template;
  choice.config_key = config_key;
  Checked checked = Check(choice, w, device);
  if (!checked.spec) throw Error(ErrorCode::kInvalidArgument, "config for " + w.Key() + " refused: " + checked.why_not);
  return std::move(*checked.spec);
}

KernelSpec ChooseFromCandidates(const tensortune::Workload& workload, const Candidates& found, const DeviceInfo& device,
                                const tensortune::PrepareOptions& options) {
  const Workload w = ToWorkload(workload);
  std::string passed;
  for (const Choice& choice : found.choices) {
    if (!options.kernel_template.empty() && choice.kernel_template != options.kernel_template) continue;
    if (Rank(choice.origin) > Rank(options.least_trusted)) {
      AddPassed(passed, choice, "refused");
      continue;
    }
    Checked checked = Check(choice, w, device);
    if (checked.spec) {
      checked.spec->choice.note = Describe(checked.spec->choice) + " from " + found.source_name + Passed(passed);
      return std::move(*checked.spec);
    }
    AddPassed(passed, choice, checked.why_not);
  }
  if (Rank(Origin::kDefault) <= Rank(options.least_trusted)) {
    KernelSpec spec = DefaultSpec(w, device, options.kernel_template, "");
    spec.choice.note = Describe(spec.choice) + ": nothing in " + found.source_name + " fits " + w.Key() + " on " +
                       device.name + Passed(passed);
    return spec;
  }
  const std::string where = " in " + found.source_name + Passed(passed) + Refusal(options);
  if (!found.device_known && Rank(options.least_trusted) < Rank(Origin::kOtherDevice))
    throw Error(ErrorCode::kUnknownDevice, "no record of device '" + device.Fingerprint() + "'" + where);
  throw Error(ErrorCode::kMissingWorkload, "no " + std::string(tensortune::ToString(options.least_trusted)) +
                                               " record fits " + w.Key() + " on " + device.name + where +
                                               "; tune it with `tensortune tune --op " + w.op + "`");
}

namespace {

// A pack as seen from the device it runs on.
struct PackPlace {
  const tensortune::KernelPack& pack;
  std::string where;         // "kernel pack DIR"
  std::string exported_for;  // "... was exported for 'NAME' (PLATFORM)"
  bool same_device = false;
};

PackPlace PlaceOf(const tensortune::KernelPack& pack, const DeviceInfo& device) {
  const std::string where = "kernel pack " + pack.directory();
  return {pack, where, where + " was exported for '" + pack.device().name + "' (" + pack.device().platform + ")",
          pack.device().platform == device.platform && pack.device().name == device.name};
}

// The pack's own kernel of the workload: as exported on its device (or an Error), on another
// device only when its config is valid there; nullopt with `passed` saying why not.
std::optional<KernelSpec> FromEntry(const KernelSpec& entry, const Workload& w, const PackPlace& place,
                                    const DeviceInfo& device, const tensortune::PrepareOptions& options,
                                    std::string& passed) {
  std::string invalid_here;
  std::optional<KernelSpec> derived = FromPack(entry, w, device, ToDeviceInfo(place.pack.device()), place.where,
                                               options.trust_pack_source, invalid_here);
  if (place.same_device) {
    if (Rank(entry.choice.origin) > Rank(options.least_trusted))
      throw Error(ErrorCode::kMissingWorkload, place.where + " holds a " + tensortune::ToString(entry.choice.origin) +
                                                   " config for " + w.Key() + Refusal(options));
    if (!derived)
      throw Error(ErrorCode::kDamagedPack, place.where + ": the config of " + w.Key() +
                                               " is not valid on the device it was exported for: " + invalid_here);
    derived->choice.note = Describe(entry.choice) + " from " + place.where;
    return derived;
  }
  if (!derived) {
    passed = "the pack's config is not valid here: " + invalid_here;
    return std::nullopt;
  }
  Choice choice = entry.choice;
  choice.origin = Origin::kOtherDevice;
  choice.source_device = place.pack.device().name;
  derived->choice = choice;
  derived->choice.note = Describe(choice) + " from " + place.exported_for + "; its config is valid here";
  return derived;
}

// The pack's most similar kernel of the workload's operator (by match score and utilisation),
// adapted to the workload; nullopt when none adapts.
std::optional<KernelSpec> AdaptFromPack(const Workload& w, const PackPlace& place, const DeviceInfo& device,
                                        const std::string& kernel_template, Origin origin) {
  std::optional<KernelSpec> best;
  double best_metric = -1;
  for (const KernelSpec& other : place.pack.kernels()) {
    const Workload recorded = Workload::FromKey(other.workload);
    if (recorded.op != w.op) continue;
    if (!kernel_template.empty() && other.choice.kernel_template != kernel_template) continue;
    const KernelTemplate* kernel = FindTemplate(other.choice.kernel_template);
    if (!kernel || kernel->WhyNotApplicable(w)) continue;
    const ConfigSpace space = kernel->Space(w, LimitsOf(device));
    const auto values = ParseConfigKey(other.choice.config_key);
    if (!values) continue;
    const TargetExtents target = TargetExtentsOf(space);
    const double score = RecordMatchScore(recorded, *values, w, target);
    const double metric =
        FilterMetric(std::max(other.choice.recorded_gflops, 1e-9), Utilisation(*values, target.exact), score);
    const auto adapted = AdaptConfig(space, *values);
    if (score <= 0 || !adapted || adapted->why_invalid || metric <= best_metric) continue;
    Choice choice;
    choice.origin = origin;
    choice.source_workload = other.workload;
    choice.source_device = place.pack.device().name;
    choice.match_score = score;
    choice.recorded_gflops = other.choice.recorded_gflops;
    best = SpecFor(*kernel, w, space, adapted->config, choice);
    best_metric = metric;
  }
  if (best) best->choice.note = Describe(best->choice) + ": " + w.Key() + " is not in " + place.where;
  return best;
}

// Nothing of the pack serves the workload: the template's default, or an Error naming what the
// pack holds.
KernelSpec DefaultOrRefusal(const Workload& w, const PackPlace& place, const DeviceInfo& device,
                            const tensortune::PrepareOptions& options, const std::string& why) {
  if (Rank(Origin::kDefault) <= Rank(options.least_trusted)) {
    KernelSpec spec = DefaultSpec(w, device, options.kernel_template, "");
    spec.choice.note = Describe(spec.choice) + ": " + why;
    return spec;
  }
  std::string held;
  for (const KernelSpec& k : place.pack.kernels()) held += (held.empty() ? "" : ", ") + k.workload;
  throw Error(ErrorCode::kMissingWorkload,
              why + " (it holds " + std::to_string(place.pack.kernels().size()) + ": " + held + ")" + Refusal(options));
}

}  // namespace

KernelSpec ChooseFromPack(const tensortune::Workload& workload, const tensortune::KernelPack& pack,
                          const DeviceInfo& device, const tensortune::PrepareOptions& options) {
  const Workload w = ToWorkload(workload);
  const PackPlace place = PlaceOf(pack, device);
  if (!place.same_device && Rank(Origin::kOtherDevice) > Rank(options.least_trusted))
    throw Error(ErrorCode::kWrongDevice, place.exported_for + ", not for '" + device.name + "' (" + device.platform +
                                             "): export a pack for this device (tensortune export-kernels --device)" +
                                             Refusal(options));
  std::string passed;
  const KernelSpec* entry = pack.Find(w.Key());
  if (entry && !options.kernel_template.empty() && entry->choice.kernel_template != options.kernel_template) {
    passed = "its kernel is sketch " + entry->choice.kernel_template;
    entry = nullptr;
  }
  if (entry) {
    if (auto spec = FromEntry(*entry, w, place, device, options, passed)) return std::move(*spec);
    return DefaultOrRefusal(w, place, device, options, passed);
  }
  // Not in the pack: adapt the most similar kernel of the operator.
  const Origin adapted = place.same_device ? Origin::kSimilarWorkload : Origin::kOtherDevice;
  if (Rank(adapted) <= Rank(options.least_trusted))
    if (auto spec = AdaptFromPack(w, place, device, options.kernel_template, adapted)) return std::move(*spec);
  return DefaultOrRefusal(w, place, device, options,
                          w.Key() + " is not in " + place.where + (passed.empty() ? "" : " (" + passed + ")") +
                              " and none of its kernels adapts to it");
}

}  // namespace tt::runtime
