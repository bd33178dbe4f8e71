// Timelines in a kernel: each role builds a Lane and marks each change of state; the Lane's end of
// scope closes the log. In the normal build a Lane is empty and every call compiles to nothing (the
// SASS test checks that no kernel reads a timer); in the trace build one thread per role writes its
// log (trace.h).
#pragma once
#include <cuda_runtime.h>

#include "common/hopper/trace.h"
#include "common/hopper/wgmma.cuh"

namespace hopper::trace {

#ifdef MATMUL_TRACE

// Each translation unit has its own copy; attach() sets the copy of the unit that launches.
static __device__ Buffer buffer;

inline cudaError_t attach(cudaStream_t stream) {
  return cudaMemcpyToSymbolAsync(buffer, &active(), sizeof(Buffer), 0, cudaMemcpyHostToDevice, stream);
}

__device__ inline int64_t global_ns() {
  int64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

class Lane {
 public:
  // Consumer `index`'s lane, or the producer's (built by the one thread that loads), or the lone
  // warpgroup's. One thread writes each log: a consumer's last thread, because its first makes
  // v7's cluster-scope release arrivals, and a release waits until the thread's earlier stores,
  // its marks included, are visible to the cluster (measured: v7 traced lost 9% with the first
  // thread recording, 6% with the last).
  __device__ Lane(Role role, int index = 0) : tile_(int(blockIdx.x)) {
    const int rank = int(threadIdx.x) % warpgroup_threads;
    const bool records = role == producer || rank == (role == consumer ? warpgroup_threads - 1 : 0);
    if (!records || buffer.logs == nullptr || int(blockIdx.x) >= buffer.ctas) return;
    const int lane = role == consumer ? 1 + index : 0;
    log_ =
        reinterpret_cast<Log*>(buffer.logs + (size_t(blockIdx.x) * lanes_per_cta + lane) * log_bytes(buffer.capacity));
    marks_ = reinterpret_cast<Mark*>(log_ + 1);
    capacity_ = uint32_t(buffer.capacity);  // read once: the kernels' asm clobbers memory, forcing reloads
    uint32_t sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    log_->used = 1;
    log_->role = role;
    log_->index = uint32_t(index);
    log_->sm = sm;
    log_->ns0 = global_ns();
    log_->clock0 = clock64();
  }

  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;

  // The output tile the next marks work for (by default the block's own).
  __device__ void next_tile(int tile) { tile_ = tile; }

  __device__ void mark(State state) {
    if (log_ == nullptr) return;
    if (count_ < capacity_) marks_[count_] = {clock64(), state, tile_};
    ++count_;
  }

  __device__ ~Lane() {
    if (log_ == nullptr) return;
    mark(done);
    log_->count = count_;
    log_->clock1 = clock64();
    log_->ns1 = global_ns();
  }

 private:
  Log* log_ = nullptr;
  Mark* marks_ = nullptr;
  uint32_t count_ = 0, capacity_ = 0;
  int tile_;
};

#else

inline cudaError_t attach(cudaStream_t) { return cudaSuccess; }

class Lane {
 public:
  __device__ Lane(Role, int = 0) {}
  __device__ void next_tile(int) {}
  __device__ void mark(State) {}
};

#endif

}  // namespace hopper::trace
