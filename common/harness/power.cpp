#include "common/harness/power.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <chrono>
#include <numeric>

namespace matmul {

// The five NVML calls this needs, found at run time: a binary that links NVML would not even
// start on a machine without a driver (CI), and the toolkit ships no nvml.h to compile against.
// Signatures and constants from the NVML API reference; every call returns 0 on success.
struct PowerSampler::Nvml {
  using Device = void*;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*handle_by_pci_bus_id)(const char*, Device*) = nullptr;
  int (*clock_info)(Device, int, unsigned*) = nullptr;  // type 1: NVML_CLOCK_SM, in MHz
  int (*power_usage)(Device, unsigned*) = nullptr;  // milliwatts
  void* library = nullptr;
  Device device = nullptr;

  ~Nvml() {
    if (shutdown) shutdown();
    if (library) dlclose(library);
  }

  // The NVML handle of the current CUDA device, matched by PCI bus id; null if anything fails.
  static std::shared_ptr<Nvml> open() {
    auto n = std::make_shared<Nvml>();
    n->library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!n->library) return nullptr;
    n->init = reinterpret_cast<int (*)()>(dlsym(n->library, "nvmlInit_v2"));
    n->shutdown = reinterpret_cast<int (*)()>(dlsym(n->library, "nvmlShutdown"));
    n->handle_by_pci_bus_id =
        reinterpret_cast<int (*)(const char*, Device*)>(dlsym(n->library, "nvmlDeviceGetHandleByPciBusId_v2"));
    n->clock_info = reinterpret_cast<int (*)(Device, int, unsigned*)>(dlsym(n->library, "nvmlDeviceGetClockInfo"));
    n->power_usage = reinterpret_cast<int (*)(Device, unsigned*)>(dlsym(n->library, "nvmlDeviceGetPowerUsage"));
    if (!n->init || !n->shutdown || !n->handle_by_pci_bus_id || !n->clock_info || !n->power_usage) return nullptr;
    if (n->init() != 0) {
      n->shutdown = nullptr;  // nothing to shut down
      return nullptr;
    }
    int cuda_device = 0;
    char bus_id[32] = {};
    if (cudaGetDevice(&cuda_device) != cudaSuccess ||
        cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_device) != cudaSuccess ||
        n->handle_by_pci_bus_id(bus_id, &n->device) != 0)
      return nullptr;
    return n;
  }
};

PowerSampler::PowerSampler() {
  static const std::shared_ptr<Nvml> shared = Nvml::open();
  nvml_ = shared;
}

PowerSampler::~PowerSampler() {
  if (thread_.joinable()) stop();
}

void PowerSampler::start() {
  clock_mhz_.clear();
  power_w_.clear();
  if (!nvml_) return;
  running_ = true;
  thread_ = std::thread([this] {
    while (running_) {
      unsigned mhz = 0, mw = 0;
      if (nvml_->clock_info(nvml_->device, 1, &mhz) == 0) clock_mhz_.push_back(mhz);
      if (nvml_->power_usage(nvml_->device, &mw) == 0) power_w_.push_back(mw * 1e-3);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
}

PowerReading PowerSampler::stop() {
  running_ = false;
  if (thread_.joinable()) thread_.join();
  const auto mean = [](const std::vector<double>& v) -> std::optional<double> {
    if (v.empty()) return std::nullopt;
    return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  };
  return {mean(clock_mhz_), mean(power_w_), int(clock_mhz_.size())};
}

}  // namespace matmul
