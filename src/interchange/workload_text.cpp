#include "interchange/workload_text.h"

#include <algorithm>
#include <string>

#include "core/errors.h"
#include "ops/kernel_template.h"

namespace tt {

Workload ValidatedWorkload(const Workload& workload) {
  const auto ops = Operators();
  const auto op = std::find_if(ops.begin(), ops.end(), [&](const OperatorInfo& o) { return o.name == workload.op; });
  if (op == ops.end()) throw UserError("unknown operator '" + workload.op + "'");
  // Named shapes are written as in the key; positional ones list the non-flag dimensions.
  const bool named = op->shape_syntax.find('=') != std::string::npos;
  std::string shape;
  std::vector<std::string> flags;
  for (const auto& [name, value] : workload.dims) {
    if (std::find(op->flags.begin(), op->flags.end(), name) != op->flags.end()) {
      if (value == 1) flags.push_back(name);
      continue;
    }
    shape += (shape.empty() ? "" : ",") + (named ? name + "=" : "") + std::to_string(value);
  }
  const Workload parsed = ParseWorkload(workload.op, shape, flags);
  if (!(parsed == workload))
    throw UserError("workload " + workload.Key() + " is not in canonical form (" + parsed.Key() + ")");
  return parsed;
}

}  // namespace tt
