// The SM clock and the board power while kernels run, read through NVML (the driver's management
// library). On a power-capped GPU the clock drops under load, so a TFLOPS figure means little
// without the clock it ran at and the watts it cost.
#pragma once
#include <atomic>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace matmul {

struct PowerReading {
  std::optional<double> sm_clock_mhz;  // mean of the samples; absent when NVML cannot be read
  std::optional<double> power_w;
  int samples = 0;
};

// Samples the SM clock and the board power of the current CUDA device every few milliseconds on
// a thread of its own, between start() and stop(). Without NVML (no driver, a GPU it does not
// manage) it samples nothing and stop() returns a reading with no values.
class PowerSampler {
 public:
  PowerSampler();
  ~PowerSampler();
  PowerSampler(const PowerSampler&) = delete;
  PowerSampler& operator=(const PowerSampler&) = delete;

  void start();
  PowerReading stop();

 private:
  struct Nvml;
  std::shared_ptr<Nvml> nvml_;  // shared by every sampler of the process; null without NVML
  std::atomic<bool> running_{false};
  std::thread thread_;
  std::vector<double> clock_mhz_, power_w_;
};

// The dense fp16/bf16 tensor-core peak of a Hopper GPU at an SM clock: 4096 FLOP per clock per SM
// (989 TFLOPS for 132 SMs at 1830 MHz).
inline double tensor_peak_tflops(int sm_count, double sm_clock_mhz) { return sm_count * 4096.0 * sm_clock_mhz * 1e-6; }

}  // namespace matmul
