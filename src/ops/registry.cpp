// The operators tensortune knows, their shape syntax, and their kernel templates.
#include <charconv>
#include <functional>

#include "core/errors.h"
#include "ops/gemm_template.h"
#include "ops/kernel_template.h"
#include "ops/selftest_template.h"

namespace tt {
namespace {

// Element counts stay below 2^31 so kernels can index with int.
constexpr int64_t kMaxElements = int64_t{1} << 31;

struct OperatorEntry {
  OperatorInfo info;
  std::vector<std::string> dims;  // positional shape: one name per comma-separated integer
  std::function<std::vector<const KernelTemplate*>()> templates;
};

const std::vector<OperatorEntry>& Registry() {
  static const std::vector<OperatorEntry> entries = {
      {{"gemm", "M,N,K", "C[M,N] = A[M,K] x B[K,N], row-major float32"},
       {"m", "n", "k"},
       [] { return std::vector<const KernelTemplate*>{&GemmTiledTemplate()}; }},
      {{"selftest", "N", "test-only kernel that can crash, hang or fail on purpose"},
       {"n"},
       [] { return std::vector<const KernelTemplate*>{&SelftestFaultsTemplate()}; }},
  };
  return entries;
}

const OperatorEntry& FindOperator(std::string_view op) {
  std::string known;
  for (const auto& e : Registry()) {
    if (e.info.name == op) return e;
    if (e.templates().front()->listed()) known += (known.empty() ? "" : ", ") + e.info.name;
  }
  throw UserError("unknown operator '" + std::string(op) + "' (known: " + known + ")");
}

void CheckBufferSizes(const Workload& w) {
  for (const auto* t : FindOperator(w.op).templates())
    for (const auto& buffer : t->Buffers(w))
      if (static_cast<int64_t>(buffer.elements) >= kMaxElements)
        throw UserError("shape " + w.Key() + " is too large: buffer " + buffer.name + " has more than 2^31 elements");
}

}  // namespace

std::vector<OperatorInfo> Operators() {
  std::vector<OperatorInfo> ops;
  for (const auto& e : Registry())
    if (e.templates().front()->listed()) ops.push_back(e.info);
  return ops;
}

Workload ParseWorkload(std::string_view op, std::string_view shape) {
  const OperatorEntry& entry = FindOperator(op);
  const std::string problem = "malformed shape '" + std::string(shape) + "' for " + std::string(op) +
                              ": expected " + entry.info.shape_syntax + " (" + std::to_string(entry.dims.size()) +
                              " positive integers separated by commas)";
  Workload w{std::string(op), {}};
  size_t pos = 0;
  for (size_t i = 0; i < entry.dims.size(); ++i) {
    const size_t end = std::min(shape.find(',', pos), shape.size());
    int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(shape.data() + pos, shape.data() + end, value);
    if (ec != std::errc() || ptr != shape.data() + end || value <= 0) throw UserError(problem);
    w.dims.emplace_back(entry.dims[i], value);
    if (i + 1 < entry.dims.size() && end == shape.size()) throw UserError(problem);
    pos = end + 1;
  }
  if (pos <= shape.size()) throw UserError(problem);  // more values than the operator has
  CheckBufferSizes(w);
  return w;
}

const KernelTemplate* FindTemplate(std::string_view name) {
  for (const auto* t : AllTemplates())
    if (t->name() == name) return t;
  return nullptr;
}

const KernelTemplate& PickTemplate(std::string_view op, std::string_view name) {
  const auto templates = TemplatesFor(op);  // throws for an unknown operator
  if (name.empty()) return *templates.front();
  std::string known;
  for (const auto* t : templates) {
    if (t->name() == name) return *t;
    known += (known.empty() ? "" : ", ") + std::string(t->name());
  }
  throw UserError("unknown template '" + std::string(name) + "' for " + std::string(op) + " (known: " + known + ")");
}

std::vector<const KernelTemplate*> TemplatesFor(std::string_view op) { return FindOperator(op).templates(); }

std::vector<const KernelTemplate*> AllTemplates() {
  std::vector<const KernelTemplate*> all;
  for (const auto& e : Registry())
    for (const auto* t : e.templates()) all.push_back(t);
  return all;
}

}  // namespace tt
