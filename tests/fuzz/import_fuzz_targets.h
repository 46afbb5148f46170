#pragma once
// What `tensortune import` does with a file's bytes, short of writing: shared by the libFuzzer
// targets (tools/fuzz-import.sh) and the corpus regression test. Bad input may only ever be
// reported (a reason string, or UserError); anything else escaping is a bug.
#include <sstream>
#include <string>
#include <string_view>

#include "core/errors.h"
#include "interchange/autotvm_mapping.h"
#include "interchange/kernel_tuner_cache.h"

namespace tt::fuzz {

inline void ImportAutoTvmLog(std::string_view text) {
  AutoTvmMapper mapper;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    if (IsAutoTvmCommentLine(line)) continue;
    const auto parsed = ParseAutoTvmRecord(line);
    if (const auto* record = std::get_if<AutoTvmRecord>(&parsed)) {
      const RecordMapping m = mapper.Map(*record);
      // An exported record must map back to the same configuration.
      if (m.outcome == RecordMapping::Outcome::kMapped) {
        const auto back = ParseAutoTvmRecord(
            FormatAutoTvmRecord(ToAutoTvmRecord(m.trial.workload, *m.trial.kernel, m.trial.config_json, m.trial.result,
                                                record->target, m.trial.measured_at)));
        if (!std::holds_alternative<AutoTvmRecord>(back) ||
            mapper.Map(std::get<AutoTvmRecord>(back)).trial.config_key != m.trial.config_key)
          __builtin_trap();
      }
    }
  }
}

inline void ImportKernelTunerCache(std::string_view text) {
  try {
    const KernelTunerCache cache = ParseKernelTunerCache(text);
    std::vector<std::string> keys;
    for (const auto& t : cache.trials) keys.push_back(t.config_key);
    const ConfigSpace space = UserSpaceFromJson(cache.space_json, keys);
    for (const auto& key : keys)
      if (!space.FromKey(key) || !space.IsValid(*space.FromKey(key))) __builtin_trap();
  } catch (const UserError&) {
  }
}

}  // namespace tt::fuzz
