#include "common/harness/timing.h"

#include <algorithm>
#include <chrono>

#include "common/check.h"

namespace matmul {

namespace {

class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&e_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { cudaEventDestroy(e_); }
  operator cudaEvent_t() const { return e_; }

 private:
  cudaEvent_t e_;
};

// One launch between two events; the milliseconds are read once everything has finished.
struct TimedLaunch {
  Event start, stop;
  float ms() const {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  }
};

// Every launch in order, kernel after kernel and round after round, each between the events of
// its own TimedLaunch; the events exist beforehand, so none is made between two launches. `before`
// goes ahead of the start event: stream order finishes it before the launch's time begins.
void launch_rounds(const std::vector<Launch>& kernels, std::vector<TimedLaunch>& launches, cudaStream_t stream,
                   const Launch& before) {
  for (size_t i = 0; i < launches.size(); ++i) {
    if (before) before(stream);
    CUDA_CHECK(cudaEventRecord(launches[i].start, stream));
    kernels[i % kernels.size()](stream);
    CUDA_CHECK(cudaEventRecord(launches[i].stop, stream));
  }
}

// Appends each finished launch's milliseconds to its kernel's samples.
void read_samples(const std::vector<TimedLaunch>& launches, Samples& ms) {
  for (size_t i = 0; i < launches.size(); ++i) ms[i % ms.size()].push_back(launches[i].ms());
}

}  // namespace

Samples warm_up(const std::vector<Launch>& kernels, int rounds, cudaStream_t stream, const Launch& before) {
  const auto start = std::chrono::steady_clock::now();
  Samples ms(kernels.size());
  for (int i = 0; i < rounds && std::chrono::steady_clock::now() - start < std::chrono::seconds(1); ++i) {
    std::vector<TimedLaunch> round(kernels.size());
    launch_rounds(kernels, round, stream, before);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    read_samples(round, ms);
  }
  return ms;
}

Samples time_rounds(const std::vector<Launch>& kernels, int rounds, cudaStream_t stream, const Launch& before) {
  std::vector<TimedLaunch> launches(size_t(rounds) * kernels.size());
  launch_rounds(kernels, launches, stream, before);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  Samples ms(kernels.size());
  read_samples(launches, ms);
  return ms;
}

Timings time_interleaved(const Launch& version, const Launch& baseline, int warmup, int iters, cudaStream_t stream) {
  const std::vector<Launch> pair{version, baseline};
  warm_up(pair, warmup, stream);
  Samples ms = time_rounds(pair, iters, stream);
  return {std::move(ms[0]), std::move(ms[1])};
}

SustainedRun time_sustained(const Launch& kernel, double seconds, cudaStream_t stream) {
  using clock = std::chrono::steady_clock;
  // Launches go out in batches of about 20 ms, so the queue stays short and the host checks the
  // time often; the batch size comes from the warm-up's pace.
  const auto warm_end = clock::now() + std::chrono::milliseconds(250);
  int warm_launches = 0;
  while (clock::now() < warm_end) {
    kernel(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    ++warm_launches;
  }
  const int batch = std::max(1, warm_launches * 20 / 250);

  PowerSampler sampler;
  TimedLaunch span;
  SustainedRun run;
  sampler.start();
  const auto end = clock::now() + std::chrono::duration<double>(seconds);
  CUDA_CHECK(cudaEventRecord(span.start, stream));
  while (clock::now() < end) {
    for (int i = 0; i < batch; ++i) kernel(stream);
    run.launches += batch;
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  CUDA_CHECK(cudaEventRecord(span.stop, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  run.power = sampler.stop();
  run.ms_per_launch = span.ms() / run.launches;
  return run;
}

}  // namespace matmul
