#include "common/harness/bandwidth.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/check.h"
#include "common/harness/stats.h"
#include "common/harness/timing.h"

namespace matmul {

namespace {

// 4 blocks of 256 threads per SM, each thread with 4 independent 16-byte loads in flight: 64 KB
// requested per SM. Half the threads an SM holds: a full SM (8 blocks) reads a 117 MB layer at
// 3.45 TB/s against 3.70, and 2 GiB no faster (4.51 against 4.52; results/hbm_read_h200.txt).
constexpr int read_threads = 256;
constexpr int read_blocks_per_sm = 4;
constexpr int read_unroll = 4;

// Sums every 32-bit word of data[0, count) into *sink, so that no load is optimised away; each warp
// adds its part once. The last round's loads are predicated, not a loop of one load at a time:
// they too are in flight together.
__global__ void read_kernel(const uint4* __restrict__ data, size_t count, unsigned* sink) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  unsigned sum = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += read_unroll * stride) {
    uint4 v[read_unroll];
#pragma unroll
    for (int u = 0; u < read_unroll; ++u) v[u] = i + u * stride < count ? data[i + u * stride] : uint4{0, 0, 0, 0};
#pragma unroll
    for (int u = 0; u < read_unroll; ++u) sum += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  sum = __reduce_add_sync(0xffffffffu, sum);
  if (threadIdx.x % 32 == 0) atomicAdd(sink, sum);
}

// read_blocks_per_sm blocks on every SM of the current device: one wave, each thread striding over the buffer.
unsigned read_grid() {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return unsigned(sms * read_blocks_per_sm);
}

// The kernel reads 16 bytes a load: a size it cannot read whole is refused, before anything is launched.
void check_read_bytes(size_t bytes) {
  if (bytes % sizeof(uint4) != 0)
    throw std::invalid_argument("a read of " + std::to_string(bytes) + " bytes: the read kernel reads multiples of " +
                                std::to_string(sizeof(uint4)) + " bytes");
}

void read_all(const void* data, size_t bytes, const DeviceBuffer& sink, unsigned blocks, cudaStream_t stream) {
  read_kernel<<<blocks, read_threads, 0, stream>>>(static_cast<const uint4*>(data), bytes / sizeof(uint4),
                                                   static_cast<unsigned*>(sink.get()));
  CUDA_CHECK(cudaGetLastError());
}

// Written once, so that every read reads defined memory (compute-sanitizer's initcheck).
DeviceBuffer zeroed(size_t bytes) {
  DeviceBuffer b(bytes);
  CUDA_CHECK(cudaMemset(b.get(), 0, bytes));
  return b;
}

size_t twice_the_l2() {
  int device = 0, l2 = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  return 2 * size_t(l2);
}

}  // namespace

L2Flush::L2Flush() : buffer_(zeroed(twice_the_l2())), sink_(zeroed(sizeof(unsigned))), blocks_(read_grid()) {}

void L2Flush::operator()(cudaStream_t stream) const { read_all(buffer_.get(), buffer_.bytes(), sink_, blocks_, stream); }

double hbm_read_gbps(const L2Flush& flush, const TimingFlags& t, size_t bytes) {
  check_read_bytes(bytes);
  const DeviceBuffer data = zeroed(bytes), sink = zeroed(sizeof(unsigned));
  const unsigned blocks = read_grid();
  const std::vector<Launch> read{[&](cudaStream_t s) { read_all(data.get(), bytes, sink, blocks, s); }};
  const Launch before = [&](cudaStream_t s) { flush(s); };
  warm_up(read, t.warmup, nullptr, before);
  const Samples ms = time_rounds(read, t.iters, nullptr, before);
  return double(bytes) / (summarize(ms[0]).median * 1e-3) / 1e9;
}

unsigned read_sum(const void* data, size_t bytes) {
  check_read_bytes(bytes);
  const DeviceBuffer sink = zeroed(sizeof(unsigned));
  read_all(data, bytes, sink, read_grid(), nullptr);
  unsigned sum = 0;
  CUDA_CHECK(cudaMemcpy(&sum, sink.get(), sizeof sum, cudaMemcpyDeviceToHost));
  return sum;
}

}  // namespace matmul
