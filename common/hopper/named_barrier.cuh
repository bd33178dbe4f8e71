// bar.sync with a barrier number and a thread count (PTX ISA 9.7.13.1, "bar, barrier"): only the
// threads that name barrier `id` wait for each other, for instance one warpgroup, while the rest
// of the CTA runs on. Barrier 0 is the one __syncthreads() uses. Like __syncthreads(), it orders
// the memory accesses that the taking-part threads made before it with those they make after.
#pragma once

namespace hopper {

// [region:named_barrier]
// `threads` must be a multiple of 32 and the same in every thread that names `id` (1 to 15).
__device__ inline void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
// [/region:named_barrier]

}  // namespace hopper
