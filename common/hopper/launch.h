// Launch setup on the host: what a kernel needs from the device it runs on (its dynamic
// shared-memory allowance, how many of its CTAs fit at once) and the launch of a grid of clusters.
// A kernel's allowance and occupancy belong to a device, not to the process: `prepare` works them
// out on a kernel's first launch on each device and keeps them per device, so a launch on a second
// GPU is set up for that GPU. Nothing here allocates or touches a stream, so a launch may be
// captured into a CUDA graph.
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <memory>

namespace hopper {

namespace detail {

// cudaError_t to an exception naming the call (std::runtime_error).
void check(cudaError_t status, const char* call);

int current_device();
int device_count();

// Allows `kernel` smem_bytes of dynamic shared memory on the current device, then returns how many
// clusters of `cluster` CTAs (CTAs, when cluster is 1) fit there at once.
int resident_on_current_device(const void* kernel, int threads, size_t smem_bytes, int cluster);

// The launch of `clusters` clusters of `cluster` CTAs; `dimension` is filled in and must outlive it.
inline cudaLaunchConfig_t cluster_config(cudaLaunchAttribute& dimension, int clusters, int cluster, int threads,
                                         size_t smem_bytes, cudaStream_t stream) {
  dimension = {};
  dimension.id = cudaLaunchAttributeClusterDimension;
  dimension.val.clusterDim = {unsigned(cluster), 1, 1};
  cudaLaunchConfig_t config{};
  config.gridDim = unsigned(clusters) * unsigned(cluster);
  config.blockDim = unsigned(threads);
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  config.attrs = &dimension;
  config.numAttrs = cluster > 1 ? 1 : 0;  // a cluster of one is a plain launch
  return config;
}

// One int per device of the machine, 0 until it is first asked for on that device. Two threads
// asking at once both compute it, and store the same value.
class PerDevice {
 public:
  PerDevice() : count_(device_count()), values_(new std::atomic<int>[count_]) {
    for (int d = 0; d < count_; ++d) values_[d] = 0;
  }
  template <typename F>
  int get(F&& compute) {
    std::atomic<int>& value = values_[current_device()];
    if (value.load(std::memory_order_acquire) == 0) value.store(compute(), std::memory_order_release);
    return value.load(std::memory_order_acquire);
  }

 private:
  int count_;
  std::unique_ptr<std::atomic<int>[]> values_;
};

}  // namespace detail

// [region:prepare]
// Readies `Kernel` for launches on the current device with `smem_bytes` of dynamic shared memory
// per CTA (cudaFuncSetAttribute: above 48 KB a kernel must be allowed it, device by device), and
// returns how many of its clusters of `cluster` CTAs fit on that device at once: CTAs per SM
// times SMs when cluster is 1 (cudaOccupancyMaxActiveBlocksPerMultiprocessor), else what the
// GPU's SM neighbourhoods (GPCs) hold (cudaOccupancyMaxActiveClusters). Worked out once per device.
template <auto Kernel>
int prepare(int threads, size_t smem_bytes, int cluster = 1) {
  static detail::PerDevice resident;
  return resident.get([&] {
    return detail::resident_on_current_device(reinterpret_cast<const void*>(Kernel), threads, smem_bytes, cluster);
  });
}
// [/region:prepare]

// [region:launch_cluster]
// Launches `kernel` on `stream` as a one-dimensional grid of `clusters` clusters of `cluster` CTAs
// (cudaLaunchKernelEx with the cluster-dimension attribute: the kernel itself declares none).
template <typename... Params, typename... Args>
void launch_cluster(void (*kernel)(Params...), int clusters, int cluster, int threads, size_t smem_bytes,
                    cudaStream_t stream, Args... args) {
  cudaLaunchAttribute dimension;
  const cudaLaunchConfig_t config = detail::cluster_config(dimension, clusters, cluster, threads, smem_bytes, stream);
  detail::check(cudaLaunchKernelEx(&config, kernel, args...), "cudaLaunchKernelEx");
}
// [/region:launch_cluster]

}  // namespace hopper
