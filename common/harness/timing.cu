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

}  // namespace

Timings time_interleaved(const std::function<void(cudaStream_t)>& version,
                         const std::function<void(cudaStream_t)>& baseline, int warmup, int iters,
                         cudaStream_t stream) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < warmup && std::chrono::steady_clock::now() - start < std::chrono::seconds(1); ++i) {
    version(stream);
    baseline(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  std::vector<TimedLaunch> v(iters), b(iters);
  for (int i = 0; i < iters; ++i) {
    CUDA_CHECK(cudaEventRecord(v[i].start, stream));
    version(stream);
    CUDA_CHECK(cudaEventRecord(v[i].stop, stream));
    CUDA_CHECK(cudaEventRecord(b[i].start, stream));
    baseline(stream);
    CUDA_CHECK(cudaEventRecord(b[i].stop, stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  Timings t;
  for (int i = 0; i < iters; ++i) {
    t.version_ms.push_back(v[i].ms());
    t.baseline_ms.push_back(b[i].ms());
  }
  return t;
}

SustainedRun time_sustained(const std::function<void(cudaStream_t)>& kernel, double seconds, cudaStream_t stream) {
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
