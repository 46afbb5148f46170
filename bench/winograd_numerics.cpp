// winograd_numerics [DEVICE_INDEX=0]
//
// The rounding error of tensortune's Winograd sketches (conv2d_winograd on NCHW,
// conv2d_winograd_f2_nchwc, conv2d_winograd_f4_nchwc) next to a direct one (conv2d_oc_vec_nchwc),
// each run through the runtime (tensortune::runtime, its untuned default config) on an OpenCL
// device with weights packed by PackWeights, against a direct convolution in double precision,
// on typical data (uniform in [-1, 1]) and adversarial data (large magnitudes, 512 channels, a
// wide dynamic range). The error is max |out - reference| / max |reference| over the output.
// Prints a markdown table; docs/templates.md ("Numerics") states the bounds from it.
#include <tensortune/layouts.h>
#include <tensortune/runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

struct Case {
  const char* name;
  int ci, hw, co;
  int kind;  // 0: uniform [-1, 1]; 1: uniform [-1e4, 1e4]; 2: +-10^u, u uniform in [-3, 3]
};

std::vector<float> Draw(size_t count, int kind, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f), exponent(-3.0f, 3.0f);
  std::vector<float> v(count);
  for (float& x : v) {
    if (kind == 0) x = unit(rng);
    if (kind == 1) x = 1e4f * unit(rng);
    if (kind == 2) x = (unit(rng) < 0 ? -1.0f : 1.0f) * std::pow(10.0f, exponent(rng));
  }
  return v;
}

std::vector<double> Direct(const Case& c, const std::vector<float>& in, const std::vector<float>& w) {
  std::vector<double> out(static_cast<size_t>(c.co) * c.hw * c.hw, 0.0);
  for (int o = 0; o < c.co; ++o)
    for (int y = 0; y < c.hw; ++y)
      for (int x = 0; x < c.hw; ++x) {
        double sum = 0;
        for (int i = 0; i < c.ci; ++i)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              const int iy = y - 1 + ky, ix = x - 1 + kx;
              if (iy >= 0 && iy < c.hw && ix >= 0 && ix < c.hw)
                sum += static_cast<double>(in[(static_cast<size_t>(i) * c.hw + iy) * c.hw + ix]) *
                       w[((static_cast<size_t>(o) * c.ci + i) * 3 + ky) * 3 + kx];
            }
        out[(static_cast<size_t>(o) * c.hw + y) * c.hw + x] = sum;
      }
  return out;
}

cl_mem Buffer(cl_context context, const std::vector<float>& data) {
  cl_int status = CL_SUCCESS;
  cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size() * sizeof(float),
                            const_cast<float*>(data.data()), &status);
  if (status != CL_SUCCESS) {
    std::fprintf(stderr, "winograd_numerics: clCreateBuffer failed (%d)\n", status);
    std::exit(1);
  }
  return m;
}

double Error(const tensortune::Runtime& runtime, cl_context context, cl_command_queue queue, const Case& c,
             const char* sketch, const std::vector<float>& in, const std::vector<float>& w,
             const std::vector<double>& want) {
  const std::string shape = "n=1,ci=" + std::to_string(c.ci) + ",h=" + std::to_string(c.hw) +
                            ",w=" + std::to_string(c.hw) + ",co=" + std::to_string(c.co) + ",kh=3,kw=3,stride=1,pad=1";
  const tensortune::Operator op = runtime.PrepareDefault({"conv2d", shape, {}}, sketch);
  const auto& args = op.arguments();
  cl_mem buffers[3] = {Buffer(context, tensortune::ConvertActivations(args[0], in)),
                       Buffer(context, tensortune::PackWeights(args[1], w)),
                       Buffer(context, std::vector<float>(args[2].elements, 0.0f))};
  op.Run(queue, {buffers[0], buffers[1], buffers[2]});
  std::vector<float> out(args[2].elements);
  clEnqueueReadBuffer(queue, buffers[2], CL_TRUE, 0, out.size() * sizeof(float), out.data(), 0, nullptr, nullptr);
  for (cl_mem b : buffers) clReleaseMemObject(b);
  const std::vector<float> plain = tensortune::ToPlain(args[2], out);
  double error = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    error = std::max(error, std::fabs(plain[i] - want[i]));
    scale = std::max(scale, std::fabs(want[i]));
  }
  return error / scale;
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned index = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 0;
  cl_platform_id platform;
  cl_device_id devices[8];
  cl_uint count = 0;
  if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 8, devices, &count) != CL_SUCCESS || index >= count) {
    std::fprintf(stderr, "winograd_numerics: no OpenCL device %u\n", index);
    return 2;
  }
  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &devices[index], nullptr, nullptr, &status);
  cl_command_queue queue = clCreateCommandQueue(context, devices[index], 0, &status);
  const tensortune::Runtime runtime(context, devices[index]);

  const Case cases[] = {{"typical, uniform [-1, 1]", 64, 56, 64, 0},
                        {"512 channels, uniform [-1, 1]", 512, 7, 512, 0},
                        {"large magnitudes, uniform [-1e4, 1e4]", 64, 14, 64, 1},
                        {"dynamic range, +-10^[-3, 3]", 256, 14, 64, 2}};
  const char* sketches[] = {"conv2d_oc_vec_nchwc", "conv2d_winograd", "conv2d_winograd_f2_nchwc",
                            "conv2d_winograd_f4_nchwc"};
  std::printf("| data (ci, h = w, co) | %s | %s | %s | %s |\n|---|---|---|---|---|\n", sketches[0], sketches[1],
              sketches[2], sketches[3]);
  for (const Case& c : cases) {
    const std::vector<float> in = Draw(static_cast<size_t>(c.ci) * c.hw * c.hw, c.kind, 1);
    const std::vector<float> w = Draw(static_cast<size_t>(c.co) * c.ci * 9, c.kind, 2);
    const std::vector<double> want = Direct(c, in, w);
    std::printf("| %s (%d, %d, %d) |", c.name, c.ci, c.hw, c.co);
    for (const char* sketch : sketches) std::printf(" %.1e |", Error(runtime, context, queue, c, sketch, in, w, want));
    std::printf("\n");
    std::fflush(stdout);
  }
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return 0;
}
