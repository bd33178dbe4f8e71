// A kernel that waits on a barrier phase nothing will ever complete: the hang that a wrong
// phase bit causes. Built with a bounded wait, it must end with the report and a trap.
#include <cstdio>

#include "common/check.h"
#include "common/hopper/mbarrier.cuh"

__global__ void wait_on_the_wrong_phase() {
  __shared__ uint64_t full;
  if (threadIdx.x == 0) {
    hopper::mbarrier_init(&full, 1);  // expects one arrival, which never comes
    hopper::fence_barrier_init();
  }
  __syncthreads();
  hopper::mbarrier_wait(&full, 0);  // phase 0 never completes
}

int main() {
  wait_on_the_wrong_phase<<<1, 32>>>();
  const cudaError_t status = cudaDeviceSynchronize();
  std::printf("kernel ended: %s\n", cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}
