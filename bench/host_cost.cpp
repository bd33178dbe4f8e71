// build/bin/host_cost: what one call of each version's matmul() costs the CPU, GPU time aside.
// Every call validates, encodes its tensor maps and enqueues the launch; that host time is a
// floor under the time of a small problem, so the ladder's smallest sizes feel it first.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <vector>

#include "common/harness/cublas.h"
#include "common/harness/device_buffer.h"
#include "common/harness/gpu.h"
#include "common/harness/harness.h"
#include "common/harness/stats.h"
#include "matmul_versions.h"

namespace matmul {
namespace {

constexpr int size = 512;  // small enough that the GPU finishes long before the next call
constexpr int calls = 2000;  // timed calls per version, after as many untimed ones
constexpr DType dtype = DType::fp16;

// Host microseconds of each call: the clock stops when matmul() returns, before the GPU is
// waited for, and each call starts on an idle stream so that no queue backs up.
std::vector<float> host_us(const Version& v, const void* a, const void* b, void* c) {
  std::vector<float> us;
  for (int i = 0; i < 2 * calls; ++i) {
    const auto start = std::chrono::steady_clock::now();
    v.run(dtype, a, b, c, size, size, size, nullptr);
    const auto end = std::chrono::steady_clock::now();
    CUDA_CHECK(cudaDeviceSynchronize());
    if (i >= calls) us.push_back(std::chrono::duration<float, std::micro>(end - start).count());
  }
  return us;
}

int run(int argc) {
  if (argc > 1) throw std::invalid_argument("host_cost takes no arguments");
  require_hopper(query_device());
  const size_t bytes = size_t(size) * size * dtype_bytes;
  DeviceBuffer a(bytes), b(bytes), c(bytes);
  std::vector<const Version*> versions = registered_versions();
  versions.push_back(&cublas_version());
  std::printf("host time of one matmul() call, %d^3 %s, %d calls each (microseconds)\n", size, dtype_name(dtype),
              calls);
  std::printf("%-18s %8s %8s %8s\n", "version", "median", "min", "max");
  for (const Version* v : versions) {
    const Stats s = summarize(host_us(*v, a.get(), b.get(), c.get()));
    std::printf("%-18s %8.2f %8.2f %8.2f\n", v->name.c_str(), s.median, s.min, s.max);
  }
  return exit_pass;
}

}  // namespace
}  // namespace matmul

int main(int argc, char**) {
  return matmul::run_guarded("host_cost", [&] { return matmul::run(argc); });
}
