// run_tuned HISTORY_DB [DEVICE_INDEX]
//
// Runs one tuned conv2d and one tuned GEMM from a tensortune history database on an OpenCL
// device, through the installed tensortune::runtime, and checks both against a plain CPU
// loop. Tunes nothing: tune these two workloads first (on the same device), e.g.
//
//   tensortune tune --op conv2d --shape n=1,ci=16,h=28,w=28,co=32,kh=3,kw=3,stride=1,pad=1 --trials 50 --db history.db
//   tensortune tune --op gemm --shape 128,96,64 --trials 50 --db history.db
//
// The configs must be exact records of this device (PrepareOptions::least_trusted), so a
// history without them is an error that says what is missing, not a silent fallback.
#include <tensortune/history.h>
#include <tensortune/layouts.h>
#include <tensortune/runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

const tensortune::Workload kConv{"conv2d", "n=1,ci=16,h=28,w=28,co=32,kh=3,kw=3,stride=1,pad=1", {}};
const tensortune::Workload kGemm{"gemm", "128,96,64", {}};

// Plain-layout references: NCHW input, OIHW weights, NCHW output; row-major matrices.
std::vector<float> ConvReference(const std::vector<float>& in, const std::vector<float>& w) {
  const int ci = 16, h = 28, wd = 28, co = 32, k = 3, pad = 1;
  std::vector<float> out(co * h * wd);
  for (int o = 0; o < co; ++o)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < wd; ++x) {
        float sum = 0;
        for (int c = 0; c < ci; ++c)
          for (int ky = 0; ky < k; ++ky)
            for (int kx = 0; kx < k; ++kx) {
              const int iy = y - pad + ky, ix = x - pad + kx;
              if (iy >= 0 && iy < h && ix >= 0 && ix < wd)
                sum += in[(c * h + iy) * wd + ix] * w[((o * ci + c) * k + ky) * k + kx];
            }
        out[(o * h + y) * wd + x] = sum;
      }
  return out;
}

std::vector<float> GemmReference(const std::vector<float>& a, const std::vector<float>& b) {
  const int m = 128, n = 96, k = 64;
  std::vector<float> c(m * n, 0.0f);
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
  return c;
}

size_t Product(const std::vector<int64_t>& dims) {
  size_t p = 1;
  for (int64_t d : dims) p *= static_cast<size_t>(d);
  return p;
}

struct OpenCl {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  std::vector<cl_mem> buffers;

  ~OpenCl() {
    for (cl_mem m : buffers) clReleaseMemObject(m);
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
  }
  cl_mem Buffer(const std::vector<float>& data) {
    cl_int status = CL_SUCCESS;
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size() * sizeof(float),
                              const_cast<float*>(data.data()), &status);
    if (status != CL_SUCCESS) throw std::runtime_error("clCreateBuffer failed");
    buffers.push_back(m);
    return m;
  }
};

// Device `index` over all platforms, in the order `tensortune devices` lists them.
bool OpenDevice(OpenCl& cl, unsigned index) {
  cl_uint platforms = 0;
  if (clGetPlatformIDs(0, nullptr, &platforms) != CL_SUCCESS || platforms == 0) return false;
  std::vector<cl_platform_id> ids(platforms);
  clGetPlatformIDs(platforms, ids.data(), nullptr);
  for (cl_platform_id platform : ids) {
    cl_uint count = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS) continue;
    if (index >= count) {
      index -= count;
      continue;
    }
    std::vector<cl_device_id> devices(count);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr);
    cl.device = devices[index];
    cl_int status = CL_SUCCESS;
    cl.context = clCreateContext(nullptr, 1, &cl.device, nullptr, nullptr, &status);
    if (status != CL_SUCCESS) return false;
    cl.queue = clCreateCommandQueue(cl.context, cl.device, 0, &status);
    return status == CL_SUCCESS;
  }
  return false;
}

// Runs `op` on plain-layout inputs (converted to the layouts its sketch reads) and compares
// the output, converted back, with `want`.
bool RunAndVerify(OpenCl& cl, const tensortune::Operator& op, const std::vector<std::vector<float>>& plain_inputs,
                  const std::vector<float>& want) {
  const auto& args = op.arguments();
  std::vector<cl_mem> buffers;
  for (size_t i = 0; i + 1 < args.size(); ++i)
    buffers.push_back(cl.Buffer(i == 1 ? tensortune::PackWeights(args[i], plain_inputs[i])
                                       : tensortune::ConvertActivations(args[i], plain_inputs[i])));
  const tensortune::Argument& out = args.back();
  buffers.push_back(cl.Buffer(std::vector<float>(out.elements, NAN)));
  op.Run(cl.queue, buffers);
  std::vector<float> got(out.elements);
  clEnqueueReadBuffer(cl.queue, buffers.back(), CL_TRUE, 0, got.size() * sizeof(float), got.data(), 0, nullptr,
                      nullptr);
  got = tensortune::ToPlain(out, got);
  for (size_t i = 0; i < want.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-3f * (1 + std::fabs(want[i])))) {
      std::printf("  MISMATCH at %zu: %g, expected %g\n", i, got[i], want[i]);
      return false;
    }
  return true;
}

std::vector<float> Random(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> small(-2, 2);  // exact in float whatever the summation order
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(small(rng));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: run_tuned HISTORY_DB [DEVICE_INDEX]\n");
    return 2;
  }
  OpenCl cl;
  if (!OpenDevice(cl, argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 0)) {
    std::fprintf(stderr, "run_tuned: no such OpenCL device\n");
    return 3;
  }
  try {
    const tensortune::Runtime runtime(cl.context, cl.device);
    const auto history = tensortune::OpenHistory(argv[1]);
    tensortune::PrepareOptions tuned_only;
    tuned_only.least_trusted = tensortune::Origin::kExact;
    std::printf("device: %s\n", runtime.device().name.c_str());

    std::mt19937 rng(1);
    int verified = 0;
    {
      const tensortune::Operator conv = runtime.Prepare(kConv, *history, tuned_only);
      std::printf("conv2d: %s\n  config %s\n", conv.choice().note.c_str(), conv.choice().config_key.c_str());
      for (const auto& a : conv.arguments())
        std::printf("  argument %s: %s\n", a.name.c_str(), tensortune::ToString(a.layout));
      const auto input = Random(Product(conv.arguments()[0].dims), rng);
      const auto weights = Random(Product(conv.arguments()[1].dims), rng);
      const bool ok = RunAndVerify(cl, conv, {input, weights}, ConvReference(input, weights));
      std::printf("  %s\n", ok ? "verified against the CPU reference" : "WRONG");
      verified += ok;
    }
    {
      const tensortune::Operator gemm = runtime.Prepare(kGemm, *history, tuned_only);
      std::printf("gemm: %s\n  config %s (%zu kernel launches, %zu scratch bytes)\n", gemm.choice().note.c_str(),
                  gemm.choice().config_key.c_str(), gemm.spec().launches.size(), gemm.scratch_bytes());
      const auto a = Random(128 * 64, rng), b = Random(64 * 96, rng);
      const bool ok = RunAndVerify(cl, gemm, {a, b}, GemmReference(a, b));
      std::printf("  %s\n", ok ? "verified against the CPU reference" : "WRONG");
      verified += ok;
    }
    std::printf("%d of 2 verified\n", verified);
    return verified == 2 ? 0 : 1;
  } catch (const tensortune::Error& e) {
    std::fprintf(stderr, "run_tuned: %s (%s)\n", e.what(), tensortune::ToString(e.code()));
    return 2;
  }
}
