#include "warmstart/cross_device.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "core/errors.h"
#include "space/config_adapt.h"
#include "warmstart/flow.h"

namespace tt {
namespace {

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool Has(const std::string& text, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return text.find(w) != std::string::npos; });
}

std::string VendorOf(const std::string& name, const std::string& platform) {
  const std::string text = Lower(name + " " + platform);
  if (Has(text, {"nvidia", "geforce", "quadro", "tesla", "rtx", "gtx", "titan"})) return "nvidia";
  if (Has(text, {"amd", "radeon", "instinct", "gfx", "advanced micro devices"})) return "amd";
  if (Has(text, {"intel", "iris", "uhd graphics"})) return "intel";
  if (Has(text, {"mali", "arm "})) return "arm";
  if (Has(text, {"adreno", "qualcomm"})) return "qualcomm";
  if (Has(text, {"apple"})) return "apple";
  return "";
}

// Words of the name without digits and without the vendor's own words: the model family.
std::vector<std::string> NameTokens(const std::string& name) {
  static const std::set<std::string> vendor_words{"nvidia", "amd", "intel", "r", "tm", "corporation", "inc"};
  std::vector<std::string> tokens;
  std::string word;
  const auto flush = [&] {
    if (!word.empty() && !vendor_words.count(word)) tokens.push_back(word);
    word.clear();
  };
  for (char c : Lower(name)) {
    if (std::isalpha(static_cast<unsigned char>(c)))
      word += c;
    else
      flush();
  }
  flush();
  std::sort(tokens.begin(), tokens.end());
  tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
  return tokens;
}

// exp(-|ln(a/b)| / 4) when both are known, else 1.
double RatioFactor(double a, double b) {
  if (!(a > 0) || !(b > 0)) return 1;
  return std::exp(-std::abs(std::log(a / b)) / 4);
}

bool Matches(const std::string& spec, size_t index, const DeviceInfo& device) {
  return spec == std::to_string(index) || (!spec.empty() && device.name.find(spec) != std::string::npos);
}

}  // namespace

DeviceFeatures FeaturesOfDevice(const DeviceInfo& device) {
  DeviceFeatures f;
  f.vendor = VendorOf(device.name, device.platform);
  f.type = device.type;
  f.name_tokens = NameTokens(device.name);
  f.compute_units = device.compute_units;
  f.max_work_group_size = static_cast<double>(device.max_work_group_size);
  f.local_mem_bytes = static_cast<double>(device.local_mem_bytes);
  f.global_mem_bytes = static_cast<double>(device.global_mem_bytes);
  return f;
}

double DeviceSimilarity(const DeviceInfo& a, const DeviceInfo& b) {
  if (a.Fingerprint() == b.Fingerprint()) return 1;
  const DeviceFeatures fa = FeaturesOfDevice(a), fb = FeaturesOfDevice(b);
  double s = 0.9;  // another device, however alike what is known of it
  if (!fa.vendor.empty() && !fb.vendor.empty() && fa.vendor != fb.vendor) s *= 0.5;
  if (!fa.type.empty() && !fb.type.empty() && fa.type != fb.type) s *= 0.2;
  s *= RatioFactor(fa.compute_units, fb.compute_units);
  s *= RatioFactor(fa.max_work_group_size, fb.max_work_group_size);
  s *= RatioFactor(fa.local_mem_bytes, fb.local_mem_bytes);
  s *= RatioFactor(fa.global_mem_bytes, fb.global_mem_bytes);
  // Jaccard overlap of the family words ("rtx a" and "rtx a": 1).
  std::vector<std::string> shared, all;
  std::set_intersection(fa.name_tokens.begin(), fa.name_tokens.end(), fb.name_tokens.begin(), fb.name_tokens.end(),
                        std::back_inserter(shared));
  std::set_union(fa.name_tokens.begin(), fa.name_tokens.end(), fb.name_tokens.begin(), fb.name_tokens.end(),
                 std::back_inserter(all));
  const double overlap = all.empty() ? 0 : static_cast<double>(shared.size()) / static_cast<double>(all.size());
  s *= 0.75 + 0.25 * overlap;
  return s;
}

std::string CrossDeviceStart::Describe() const {
  std::string text;
  for (const DeviceSource& s : sources)
    text += fmt::format("{}{} (similarity {:.2f}, {} records)", text.empty() ? "" : ", ", s.device.name, s.similarity,
                        s.records);
  return text.empty() ? "no other device" : text;
}

CrossDeviceStart CrossDeviceWarmStart(const TrialHistory& store, const Workload& workload,
                                      const TemplateRef& kernel_template, const DeviceInfo& target,
                                      const CrossDeviceOptions& options) {
  const auto recorded = store.RecordedTasks(workload, kernel_template);
  std::vector<DeviceSource> chosen;
  if (!options.devices.empty()) {
    for (const std::string& spec : options.devices) {
      bool found = false;
      for (size_t i = 0; i < recorded.size() && !found; ++i) {
        if (!Matches(spec, i, recorded[i].second)) continue;
        if (recorded[i].second.Fingerprint() == target.Fingerprint())
          throw UserError("--warm-from " + spec + " names the device being tuned (" + target.name + ")");
        found = true;
        const bool repeated = std::any_of(chosen.begin(), chosen.end(), [&](const DeviceSource& s) {
          return s.device.Fingerprint() == recorded[i].second.Fingerprint();
        });
        if (!repeated)
          chosen.push_back({recorded[i].second, recorded[i].first, DeviceSimilarity(target, recorded[i].second), 0});
      }
      if (!found) {
        std::string known;
        for (size_t i = 0; i < recorded.size(); ++i)
          known += fmt::format("{}{}: {}", known.empty() ? "" : "; ", i, recorded[i].second.name);
        throw UserError("no recorded device matches '" + spec + "' for this task (" + known + ")");
      }
    }
  } else {
    for (const auto& [ids, device] : recorded) {
      if (device.Fingerprint() == target.Fingerprint()) continue;
      const double similarity = DeviceSimilarity(target, device);
      if (similarity >= options.min_similarity) chosen.push_back({device, ids, similarity, 0});
    }
    std::stable_sort(chosen.begin(), chosen.end(),
                     [](const DeviceSource& a, const DeviceSource& b) { return a.similarity > b.similarity; });
    if (chosen.size() > options.max_devices) chosen.resize(options.max_devices);
  }

  CrossDeviceStart start;
  start.warm_start.workload_features = WorkloadFeatures(workload);
  for (DeviceSource& source : chosen) {
    const int index = static_cast<int>(start.sources.size());
    for (const MeasuredConfig& m : store.MeasuredConfigs(source.ids)) {
      auto values = ParseConfigKey(m.config_key);
      if (!values) continue;
      start.warm_start.transfer.push_back({std::move(*values), start.warm_start.workload_features,
                                           m.status == MeasureStatus::kOk ? m.gflops : 0, source.similarity, index});
      ++source.records;
    }
    start.sources.push_back(std::move(source));
  }
  return start;
}

}  // namespace tt
