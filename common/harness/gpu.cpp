#include "common/harness/gpu.h"

#include <cuda_runtime.h>

#include <cctype>
#include <filesystem>

#include "common/check.h"

namespace matmul {

namespace {

std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

int attribute(cudaDeviceAttr a, int device) {
  int value = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&value, a, device));
  return value;
}

}  // namespace

DeviceInfo query_device() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    // Without any driver the runtime says "driver version is insufficient", which misleads.
    int driver = 0;
    const bool no_driver = cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0;
    if ((status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver) &&
        (no_driver || !std::filesystem::exists("/dev/nvidia0")))
      throw NoUsableGpu("no NVIDIA GPU/driver found");
    throw NoUsableGpu(std::string("no CUDA GPU found (") +
                      (status != cudaSuccess ? cudaGetErrorString(status) : "0 devices") + ")");
  }
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  DeviceInfo d;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.sm_clock_mhz = attribute(cudaDevAttrClockRate, device) / 1000;
  d.mem_clock_mhz = attribute(cudaDevAttrMemoryClockRate, device) / 1000;
  d.l2_mb = p.l2CacheSize >> 20;
  int driver = 0, runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  d.driver = cuda_version_text(driver);
  d.runtime = cuda_version_text(runtime);
  return d;
}

void require_hopper(const DeviceInfo& d) {
  if (d.cc_major != 9 || d.cc_minor != 0)
    throw NoUsableGpu("GPU '" + d.name + "' has compute capability " + std::to_string(d.cc_major) + "." +
                      std::to_string(d.cc_minor) + "; these kernels need Hopper (9.0, built for sm_90a)");
}

std::string gpu_slug(const std::string& name) {
  std::string s;
  for (char c : name) s += std::isalnum(static_cast<unsigned char>(c)) ? char(std::tolower(c)) : '-';
  if (s.rfind("nvidia-", 0) == 0) s.erase(0, 7);
  std::string out;  // collapse runs of '-' and trim them at the ends
  for (char c : s)
    if (c != '-' || (!out.empty() && out.back() != '-')) out += c;
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "gpu" : out;
}

}  // namespace matmul
