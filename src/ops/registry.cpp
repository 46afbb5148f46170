// The operators tensortune knows, their shape syntax, and their kernel templates.
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <optional>

#include "core/errors.h"
#include "ops/conv2d_templates.h"
#include "ops/conv_shape.h"
#include "ops/depthwise_conv2d_template.h"
#include "ops/kernel_template.h"
#include "ops/matmul_templates.h"
#include "ops/selftest_template.h"

namespace tt {
namespace {

// Element counts stay below 2^31 so kernels can index with int (and a buffer below 8 GiB). A
// single size of 2^31 or more can never fit; refusing it first keeps every product of two
// sizes (a dilated kernel's span, a padded extent) far from overflowing.
constexpr int64_t kMaxElements = int64_t{1} << 31;

struct DimSpec {
  DimSpec(const char* name, int64_t min = 1, std::optional<int64_t> default_value = std::nullopt)
      : name(name), min(min), default_value(default_value) {}
  std::string name;
  int64_t min;
  std::optional<int64_t> default_value;  // named shapes only: may be left out
};

struct OperatorEntry {
  OperatorInfo info;
  std::vector<DimSpec> dims;  // in canonical order; flags come last, as 0/1 dimensions
  bool named = false;         // --shape is key=value pairs rather than positional integers
  std::function<std::vector<const KernelTemplate*>()> templates;
  std::function<std::optional<std::string>(const Workload&)> why_malformed = [](const Workload&) {
    return std::optional<std::string>();
  };
};

std::optional<std::string> ConvProblem(const Workload& w) {
  const ConvShape s = ConvShape::Of(w);
  if (s.oh < 1 || s.ow < 1) return "the dilated kernel is larger than the padded input";
  return std::nullopt;
}

const std::vector<DimSpec> kConvSpatial = {{"h"}, {"w"}};
const std::vector<DimSpec> kConvWindow = {{"kh"}, {"kw"}, {"stride"}, {"pad", 0}, {"dilation", 1, 1}};

std::vector<DimSpec> Concat(std::vector<DimSpec> a, const std::vector<DimSpec>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<OperatorEntry>& Registry() {
  static const std::vector<OperatorEntry> entries = {
      {{"gemm", "M,N,K", "C[M,N] = A[M,K] x B[K,N], row-major float32", {}},
       {{"m"}, {"n"}, {"k"}},
       false,
       [] {
         // gemm_rows_panels before gemm_rows: of two specialists, the first is tried first.
         return std::vector<const KernelTemplate*>{&GemmTiledTemplate(), &GemmRowsPanelsTemplate(),
                                                   &GemmRowsTemplate()};
       }},
      {{"conv2d",
        "n=1,ci=64,h=56,w=56,co=64,kh=3,kw=3,stride=1,pad=1[,dilation=1]",
        "2-D convolution, NCHW input, OIHW weights, float32",
        {}},
       Concat(Concat({{"n"}, {"ci"}}, kConvSpatial), Concat({{"co"}}, kConvWindow)),
       true,
       [] {
         return std::vector<const KernelTemplate*>{
             &Conv2dDirectLocalTemplate(), &Conv2dDirectGlobalTemplate(),    &Conv2dDirectVecTemplate(),
             &Conv2dOcVecTemplate(),       &Conv2dWinogradTemplate(),        &Conv2dImplicitGemmTemplate(),
             &Conv2dOcVecNchwcTemplate(),  &Conv2dWinogradF2NchwcTemplate(), &Conv2dWinogradF4NchwcTemplate()};
       },
       ConvProblem},
      {{"depthwise_conv2d",
        "n=1,c=32,h=112,w=112,kh=3,kw=3,stride=1,pad=1[,dilation=1]",
        "depthwise 2-D convolution, channel multiplier 1, NCHW input, C x 1 x KH x KW weights, float32",
        {}},
       Concat(Concat({{"n"}, {"c"}}, kConvSpatial), kConvWindow),
       true,
       [] {
         return std::vector<const KernelTemplate*>{&DepthwiseConv2dTemplate(), &DepthwiseConv2dVecTemplate(),
                                                   &DepthwiseConv2dNchwcTemplate()};
       },
       ConvProblem},
      {{"batch_matmul",
        "B,M,N,K [--transpose-a] [--transpose-b]",
        "Z[b] = op(X[b]) x op(Y[b]); op transposes when asked (X stored K x M, Y stored N x K)",
        {"transpose_a", "transpose_b"}},
       {{"b"}, {"m"}, {"n"}, {"k"}, {"transpose_a", 0}, {"transpose_b", 0}},
       false,
       [] { return std::vector<const KernelTemplate*>{&BatchMatmulTiledTemplate()}; }},
      {{"selftest", "N", "test-only kernel that can crash, hang or fail on purpose", {}},
       {{"n"}},
       false,
       [] { return std::vector<const KernelTemplate*>{&SelftestFaultsTemplate()}; }},
  };
  return entries;
}

// The unlisted, test-only operator (selftest, whose kernels crash or hang on purpose) is
// reachable only with TENSORTUNE_DIAGNOSTICS=1 in the environment, as the fault tests set it.
bool DiagnosticsEnabled() {
  const char* value = std::getenv("TENSORTUNE_DIAGNOSTICS");
  return value != nullptr && std::string_view(value) == "1";
}

const OperatorEntry& FindOperator(std::string_view op) {
  std::string known;
  for (const auto& e : Registry()) {
    const bool listed = e.templates().front()->listed();
    if (e.info.name == op && (listed || DiagnosticsEnabled())) return e;
    if (listed) known += (known.empty() ? "" : ", ") + e.info.name;
  }
  throw UserError("unknown operator '" + std::string(op) + "' (known: " + known + ")");
}

bool IsFlag(const OperatorEntry& e, std::string_view dim) {
  return std::find(e.info.flags.begin(), e.info.flags.end(), dim) != e.info.flags.end();
}

std::optional<int64_t> ParseInteger(std::string_view text) {
  int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::vector<std::string_view> SplitCommas(std::string_view text) {
  std::vector<std::string_view> items;
  size_t pos = 0;
  while (true) {
    const size_t end = std::min(text.find(',', pos), text.size());
    items.push_back(text.substr(pos, end - pos));
    if (end == text.size()) return items;
    pos = end + 1;
  }
}

// Values of the non-flag dimensions, in canonical order.
std::vector<int64_t> ParsePositional(const OperatorEntry& e, std::string_view shape, size_t count,
                                     const std::string& problem) {
  const auto items = SplitCommas(shape);
  if (items.size() != count) throw UserError(problem);
  std::vector<int64_t> values;
  for (size_t i = 0; i < count; ++i) {
    const auto value = ParseInteger(items[i]);
    if (!value || *value < e.dims[i].min) throw UserError(problem);
    values.push_back(*value);
  }
  return values;
}

std::vector<int64_t> ParseNamed(const OperatorEntry& e, std::string_view shape, size_t count,
                                const std::string& problem) {
  std::vector<std::optional<int64_t>> given(count);
  for (std::string_view item : SplitCommas(shape)) {
    const size_t eq = item.find('=');
    const std::string key(item.substr(0, std::min(eq, item.size())));
    const auto dim = std::find_if(e.dims.begin(), e.dims.begin() + static_cast<ptrdiff_t>(count),
                                  [&](const DimSpec& d) { return d.name == key; });
    if (eq == std::string_view::npos || dim == e.dims.begin() + static_cast<ptrdiff_t>(count))
      throw UserError(problem + (eq == std::string_view::npos ? "" : "; unknown key '" + key + "'"));
    auto& slot = given[static_cast<size_t>(dim - e.dims.begin())];
    if (slot) throw UserError(problem + "; '" + key + "' given twice");
    const auto value = ParseInteger(item.substr(eq + 1));
    if (!value || *value < dim->min)
      throw UserError(problem + "; '" + key + "' must be an integer of at least " + std::to_string(dim->min));
    slot = value;
  }
  std::vector<int64_t> values;
  for (size_t i = 0; i < count; ++i) {
    if (!given[i] && !e.dims[i].default_value) throw UserError(problem + "; '" + e.dims[i].name + "' is missing");
    values.push_back(given[i] ? *given[i] : *e.dims[i].default_value);
  }
  return values;
}

void CheckSizes(const Workload& w) {
  for (const auto& [name, value] : w.dims)
    if (value >= kMaxElements)
      throw UserError("shape " + w.Key() + " is too large: every size must be below 2^31, " + name + " is " +
                      std::to_string(value));
}

// Element counts saturate rather than wrap (ElementCount), so an overflow reads as too large.
// Sketches that cannot compute the shape anyway (gemm_rows_panels past 8 rows) do not count.
void CheckBufferSizes(const OperatorEntry& e, const Workload& w) {
  for (const auto* t : e.templates()) {
    if (t->WhyNotApplicable(w)) continue;
    for (const auto& buffer : t->Buffers(w))
      if (buffer.elements >= static_cast<size_t>(kMaxElements))
        throw UserError("shape " + w.Key() + " is too large for any device: buffer " + buffer.name +
                        " would have 2^31 elements or more");
  }
}

std::string FlagSwitch(const std::string& flag) {
  std::string s = "--" + flag;
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

}  // namespace

std::vector<OperatorInfo> Operators() {
  std::vector<OperatorInfo> ops;
  for (const auto& e : Registry())
    if (e.templates().front()->listed()) ops.push_back(e.info);
  return ops;
}

Workload ParseWorkload(std::string_view op, std::string_view shape, const std::vector<std::string>& flags) {
  const OperatorEntry& e = FindOperator(op);
  for (const auto& flag : flags)
    if (!IsFlag(e, flag)) throw UserError(FlagSwitch(flag) + " does not apply to " + std::string(op));
  const size_t count = e.dims.size() - e.info.flags.size();
  const std::string problem = "malformed shape '" + std::string(shape) + "' for " + std::string(op) + ": expected " +
                              e.info.shape_syntax.substr(0, e.info.shape_syntax.find(' ')) +
                              (e.named ? "" : " (" + std::to_string(count) + " positive integers separated by commas)");
  const std::vector<int64_t> values =
      e.named ? ParseNamed(e, shape, count, problem) : ParsePositional(e, shape, count, problem);
  Workload w{std::string(op), {}};
  for (size_t i = 0; i < count; ++i) w.dims.emplace_back(e.dims[i].name, values[i]);
  for (size_t i = count; i < e.dims.size(); ++i)
    w.dims.emplace_back(e.dims[i].name, std::count(flags.begin(), flags.end(), e.dims[i].name) ? 1 : 0);
  CheckSizes(w);
  if (auto why = e.why_malformed(w)) throw UserError("shape " + w.Key() + " is not valid: " + *why);
  CheckBufferSizes(e, w);
  return w;
}

const KernelTemplate* FindTemplate(std::string_view name) {
  for (const auto* t : AllTemplates())
    if (t->name() == name) return t;
  return nullptr;
}

const KernelTemplate& PickTemplate(const Workload& workload, std::string_view name) {
  const auto templates = TemplatesFor(workload.op);  // throws for an unknown operator
  if (name.empty()) {
    const auto applicable = ApplicableTemplates(workload);
    if (applicable.empty()) throw UserError("no template of " + workload.op + " can compute " + workload.Key());
    return *applicable.front();
  }
  std::string known;
  for (const auto* t : templates) {
    if (t->name() != name) {
      known += (known.empty() ? "" : ", ") + std::string(t->name());
      continue;
    }
    if (auto why = t->WhyNotApplicable(workload))
      throw UserError("template " + std::string(name) + " cannot compute " + workload.Key() + ": " + *why);
    return *t;
  }
  throw UserError("unknown template '" + std::string(name) + "' for " + workload.op + " (known: " + known + ")");
}

std::vector<const KernelTemplate*> TemplatesFor(std::string_view op) { return FindOperator(op).templates(); }

std::vector<const KernelTemplate*> ApplicableTemplates(const Workload& workload) {
  std::vector<const KernelTemplate*> applicable;
  for (const auto* t : TemplatesFor(workload.op))
    if (!t->WhyNotApplicable(workload)) applicable.push_back(t);
  return applicable;
}

std::vector<const KernelTemplate*> AllTemplates() {
  std::vector<const KernelTemplate*> all;
  for (const auto& e : Registry())
    for (const auto* t : e.templates()) all.push_back(t);
  return all;
}

}  // namespace tt
