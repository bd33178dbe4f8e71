// What a memory-bound GEMM is measured with (the ladder's LLM suite): an L2 flush before each
// timed launch, and the HBM read limit that its weight bandwidth is held against.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "common/harness/cli.h"
#include "common/harness/device_buffer.h"

namespace matmul {

// Enqueues a read of a buffer twice the size of the current device's L2, which leaves nothing a
// following kernel could reuse there. A read, not a write: the lines it leaves are clean, so the
// kernel that evicts them pays nothing, where a write would leave an L2 of dirty lines for the
// timed kernel to write back (60 MiB on the H200: over 10 µs, a decode-size GEMM's whole time).
// The read also writes back whatever the previous kernel left dirty (its C).
class L2Flush {
 public:
  L2Flush();  // on the current device
  void operator()(cudaStream_t stream) const;
  size_t bytes() const { return buffer_.bytes(); }

 private:
  DeviceBuffer buffer_, sink_;
  unsigned blocks_;
};

// The buffer the HBM read limit is measured on: 2 GiB, 34 times the H200's L2 (60 MiB), so the reads come
// from HBM whatever the L2 kept.
inline constexpr size_t hbm_read_bytes = size_t(2) << 30;

// The HBM read limit of the current device in GB/s (10^9 bytes a second): our own read kernel
// (16-byte loads, grid-stride, four blocks on every SM) over `bytes`, timed like the suite's kernels
// (`t.warmup` untimed launches, then the median of `t.iters`, each after `flush`). Over a layer's
// bytes it is what a plain read of W reaches in that time: a launch pays a fixed cost that the
// 2 GiB read spreads thin and a 117 MB one does not (docs/v9_stream_k.md).
double hbm_read_gbps(const L2Flush& flush, const TimingFlags& t, size_t bytes = hbm_read_bytes);

// What each of those reads computes, once, on the legacy stream: the sum of the 32-bit words of
// `bytes` at `data`, modulo 2^32. A test checks with it that every word is read once, the last
// round's included. Both refuse a `bytes` that is not a multiple of 16 (std::invalid_argument).
unsigned read_sum(const void* data, size_t bytes);

}  // namespace matmul
