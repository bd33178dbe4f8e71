// The GPU this process runs on, and the check that it can run sm_90a code.
#pragma once
#include <stdexcept>
#include <string>

namespace matmul {

// There is no GPU these kernels can run on (none at all, or one that is not Hopper).
struct NoUsableGpu : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct DeviceInfo {
  std::string name;  // "NVIDIA H200"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int sm_clock_mhz = 0;  // maximum SM clock
  int mem_clock_mhz = 0;  // maximum memory clock
  int l2_mb = 0;
  std::string driver, runtime;  // CUDA versions, "13.0"
};

// Throws NoUsableGpu when there is no CUDA GPU (or no driver).
DeviceInfo query_device();

// Throws NoUsableGpu naming the GPU and its compute capability unless it is Hopper (9.0):
// the kernels are built for sm_90a only.
void require_hopper(const DeviceInfo& d);

// File-name form of a GPU's name: "NVIDIA H200" -> "h200", "NVIDIA H100 80GB HBM3" -> "h100-80gb-hbm3".
std::string gpu_slug(const std::string& name);

}  // namespace matmul
