#include "common/harness/timing.h"

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

}  // namespace matmul
