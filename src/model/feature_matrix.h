#pragma once
#include <cstddef>
#include <vector>

namespace tt {

// Dense rows of features, row-major, as the cost model consumes them.
struct FeatureMatrix {
  size_t rows = 0;
  size_t cols = 0;
  std::vector<float> values;  // rows * cols

  const float* row(size_t r) const { return values.data() + r * cols; }
};

}  // namespace tt
