#pragma once
// One line of an AutoTVM tuning log (record format 0.2, also TopHub's packages):
// {"input": [target, task name, args, kwargs], "config": {"index", "code_hash", "entity"},
//  "result": [costs, error_no, all_cost, timestamp], "version": 0.2, "tvm_version": ...}
// Record format 0.1 (TVM before 0.7; TopHub's cuda v0.01-v0.07, rocm, opencl, mali, arm_cpu
// up to v0.05) is read too: {"i": [target, task name, args, kwargs, workload, {"i", "c", "e",
// "t"}], "r": [...], "v": 0.1}. Its TOPI tasks whose knobs are those of today's CUDA templates
// get today's task names and arguments (topi_nn_conv2d "direct" is conv2d_nchw.cuda), as
// TopHub's own conversion of cuda v0.07 to v0.08 did; others keep their name and template key.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tt {

struct AutoTvmRecord {
  std::string target;       // "cuda -model=titanx"
  std::string task_name;    // "conv2d_nchw.cuda"
  std::string args_json;    // the task's arguments, as JSON text
  std::string entity_json;  // the config: [["tile_f","sp",[1,2,4,8]], ["unroll_explicit","ot",1], ...]
  int64_t config_index = 0;
  std::vector<double> costs;  // seconds per timed repeat; AutoTVM writes [1e9] for a failure
  int error_no = 0;           // AutoTVM's MeasureErrorNo: 0 no error, 1 instantiation, 2-3 compile, ...
  double all_cost = 0;        // seconds spent on the whole measurement, build included
  double timestamp = 0;       // Unix time of the measurement
  std::string tvm_version;
  bool format_01 = false;  // read from record format 0.1
};

// The record on `line`, or why it is not one (one short sentence). Never throws.
std::variant<AutoTvmRecord, std::string> ParseAutoTvmRecord(std::string_view line);
// One line (no newline) that ParseAutoTvmRecord reads back as `record`.
std::string FormatAutoTvmRecord(const AutoTvmRecord& record);
// True for lines an AutoTVM log may hold besides records: blank ones and # comments.
bool IsAutoTvmCommentLine(std::string_view line);

}  // namespace tt
