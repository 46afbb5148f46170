#pragma once
// Helpers for kernel-template tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "ops/conv_shape.h"
#include "ops/kernel_template.h"

namespace tt::testing {

// The config with these knob values, every other knob at its first value.
inline Config Pick(const ConfigSpace& space, const std::map<std::string, KnobValue>& values) {
  Config c(space.num_knobs(), 0);
  for (const auto& [name, v] : values) {
    const size_t i = space.KnobIndex(name);
    c[i] = space.knob(i).Find(v).value();
  }
  return c;
}

// Replays the output indexing that the direct convolution kernels (conv2d_direct.cl,
// depthwise_conv2d.cl) share for every valid config without unrolling knobs set: each output
// element must be written exactly once. Returns how many configs were checked.
inline size_t ExpectDirectConvCoversEachOutputOnce(const KernelTemplate& t, const Workload& w,
                                                   const DeviceLimits& limits) {
  const ConfigSpace space = t.Space(w, limits);
  const ConvShape s = ConvShape::Of(w);
  size_t checked = 0;
  for (uint64_t index = 0; index < space.Size(); ++index) {
    const Config c = space.FromIndex(index);
    if (!space.IsValid(c) || space.Scalar(c, "auto_unroll_max_step") || space.Scalar(c, "unroll_explicit")) continue;
    const KnobValue f = space.Value(c, "tile_f"), y = space.Value(c, "tile_y"), x = space.Value(c, "tile_x");
    const LaunchGeometry g = t.Geometry(w, space, c);
    std::vector<int> writes(s.output_elements(), 0);
    for (size_t gz = 0; gz < g.global[2]; ++gz)
      for (size_t gy = 0; gy < g.global[1]; ++gy)
        for (size_t gx = 0; gx < g.global[0]; ++gx) {
          const int64_t n = gz / g.local[2] / f[0], f0 = gz / g.local[2] % f[0] * f[1] * f[2] * f[3];
          const int64_t y0 = gy / g.local[1] * y[1] * y[2] * y[3], x0 = gx / g.local[0] * x[1] * x[2] * x[3];
          const int64_t lf = gz % g.local[2], ly = gy % g.local[1], lx = gx % g.local[0];
          for (int64_t v = 0; v < f[1]; ++v)
            for (int64_t i = 0; i < f[3]; ++i)
              for (int64_t vy = 0; vy < y[1]; ++vy)
                for (int64_t yi = 0; yi < y[3]; ++yi)
                  for (int64_t vx = 0; vx < x[1]; ++vx)
                    for (int64_t xi = 0; xi < x[3]; ++xi) {
                      const int64_t ff = f0 + v * f[2] * f[3] + lf * f[3] + i;
                      const int64_t yy = y0 + vy * y[2] * y[3] + ly * y[3] + yi;
                      const int64_t xx = x0 + vx * x[2] * x[3] + lx * x[3] + xi;
                      ++writes[((n * s.co + ff) * s.oh + yy) * s.ow + xx];
                    }
        }
    EXPECT_EQ(static_cast<size_t>(std::count(writes.begin(), writes.end(), 1)), s.output_elements()) << space.Key(c);
    ++checked;
  }
  return checked;
}

}  // namespace tt::testing
