#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tt {

// One operator instance: the operator's name and its named dimensions, in the operator's
// canonical order (gemm: m, n, k). Flags such as a transposition are dimensions of 0 or 1.
struct Workload {
  std::string op;
  std::vector<std::pair<std::string, int64_t>> dims;

  int64_t Dim(std::string_view name) const;       // throws std::out_of_range when absent
  std::string Key() const;                        // canonical: "gemm:m=512,n=1024,k=1024"
  static Workload FromKey(std::string_view key);  // throws UserError when malformed
  bool operator==(const Workload&) const = default;
};

// The dimensions of a convolution's window (kh, kw, stride, dilation): they set the shape of
// the loop nest rather than its size, so a workload with another window is another kind of
// problem (a 1x1 stride-2 projection is memory-bound where a 3x3 one is not).
bool IsWindowDim(std::string_view name);
// Whether two workloads of one operator have the same window dimensions (true where neither
// has any, as for gemm).
bool SameWindow(const Workload& a, const Workload& b);

}  // namespace tt
