// Timing with CUDA events: every launch timed on its own, the version and the baseline
// interleaved launch by launch so that clock drift and throttling hit both alike.
#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "common/harness/power.h"

namespace matmul {

struct Timings {
  std::vector<float> version_ms, baseline_ms;
};

// Up to `warmup` untimed launches of each (fewer once a second has passed: one launch of a slow
// kernel warms up as well as ten), then `iters` timed pairs: version, baseline, version, ...
Timings time_interleaved(const std::function<void(cudaStream_t)>& version,
                         const std::function<void(cudaStream_t)>& baseline, int warmup, int iters,
                         cudaStream_t stream = nullptr);

// One kernel alone, launched back to back for about `seconds` after a quarter second of warm-up,
// with the SM clock and the board power sampled meanwhile: what a sustained load costs.
struct SustainedRun {
  double ms_per_launch = 0;
  int launches = 0;
  PowerReading power;
};
SustainedRun time_sustained(const std::function<void(cudaStream_t)>& kernel, double seconds,
                            cudaStream_t stream = nullptr);

}  // namespace matmul
