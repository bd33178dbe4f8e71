#include "common/hopper/launch.h"

#include <stdexcept>
#include <string>

namespace hopper::detail {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(call) + " failed: " + cudaGetErrorString(status));
}

int current_device() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

int device_count() {
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  return count;
}

int resident_on_current_device(const void* kernel, int threads, size_t smem_bytes, int cluster) {
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem_bytes)),
        "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
  if (cluster == 1) {
    int sms = 0, per_sm = 0;
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, current_device()), "cudaDeviceGetAttribute");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem_bytes),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return sms * per_sm;
  }
  cudaLaunchAttribute dimension;
  const cudaLaunchConfig_t probe = cluster_config(dimension, 1, cluster, threads, smem_bytes, nullptr);
  int clusters = 0;
  check(cudaOccupancyMaxActiveClusters(&clusters, kernel, &probe), "cudaOccupancyMaxActiveClusters");
  return clusters;
}

}  // namespace hopper::detail
