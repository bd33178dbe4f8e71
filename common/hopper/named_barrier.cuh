// Named barriers (PTX ISA, "Parallel Synchronization and Communication Instructions: bar,
// barrier"): each CTA has 16, numbered 0 to 15; __syncthreads() is barrier 0 over the whole CTA.
// Any other id lets a subset of the warps, such as one warpgroup, wait for each other alone.
#pragma once

namespace hopper {

// Waits until `threads` threads (a multiple of 32, whole warps) have arrived at barrier `id`.
__device__ inline void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// Arrives at barrier `id` without waiting: one of the `threads` that complete it, the others
// waiting in named_barrier_sync (a signal from one warpgroup to another).
__device__ inline void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace hopper
