// Timing with CUDA events: every launch timed on its own, the kernels compared interleaved in
// rounds, launch by launch, so that clock drift and throttling hit them all alike.
#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "common/harness/power.h"

namespace matmul {

// One kernel's launch on a stream.
using Launch = std::function<void(cudaStream_t)>;

// The milliseconds of each launch: one vector per kernel, in the order the kernels were given.
using Samples = std::vector<std::vector<float>>;

// Up to `rounds` rounds, each launching every kernel once, in order, then waiting for them; none
// starts once a second has passed (one launch of a slow kernel warms up as well as ten). The
// launches are timed all the same: how long each kernel takes, before it is timed in earnest.
// `before`, when given, is enqueued before every launch, outside its events: work a launch needs
// done first that is not its time (the LLM suite's L2 flush).
Samples warm_up(const std::vector<Launch>& kernels, int rounds, cudaStream_t stream = nullptr,
                const Launch& before = {});

// `rounds` rounds queued back to back, each launching every kernel once, in order, each launch
// between its own two events (and after `before`, untimed); read after one final synchronisation.
Samples time_rounds(const std::vector<Launch>& kernels, int rounds, cudaStream_t stream = nullptr,
                    const Launch& before = {});

struct Timings {
  std::vector<float> version_ms, baseline_ms;
};

// The rounds of two: up to `warmup` rounds of warm-up, then `iters` timed pairs: version,
// baseline, version, ...
Timings time_interleaved(const Launch& version, const Launch& baseline, int warmup, int iters,
                         cudaStream_t stream = nullptr);

// One kernel alone, launched back to back for about `seconds` after a quarter second of warm-up,
// with the SM clock and the board power sampled meanwhile: what a sustained load costs.
struct SustainedRun {
  double ms_per_launch = 0;
  int launches = 0;
  PowerReading power;
};
SustainedRun time_sustained(const Launch& kernel, double seconds, cudaStream_t stream = nullptr);

}  // namespace matmul
