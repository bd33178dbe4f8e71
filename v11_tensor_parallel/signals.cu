#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "common/check.h"
#include "common/hopper/mbarrier.cuh"
#include "v11_tensor_parallel/signals.h"

namespace v11_tensor_parallel {

namespace {

__global__ void signal_kernel(int* semaphore) {
  asm volatile("red.release.sys.global.add.s32 [%0], 1;" ::"l"(semaphore) : "memory");
}

// One thread spins; the bounded-wait build gives up after HOPPER_WAIT_TIMEOUT_NS, names the
// semaphore and traps, as the kernels' own waits do.
__global__ void wait_kernel(int* semaphore) {
#ifdef HOPPER_WAIT_TIMEOUT_NS
  const uint64_t start = hopper::global_timer_ns();
#endif
  for (int count = 0; count < 1;) {
    asm volatile("ld.acquire.sys.global.s32 %0, [%1];" : "=r"(count) : "l"(semaphore) : "memory");
    if (count < 1) __nanosleep(200);
#ifdef HOPPER_WAIT_TIMEOUT_NS
    if (hopper::global_timer_ns() - start > HOPPER_WAIT_TIMEOUT_NS) {
      printf("tensor-parallel semaphore wait timed out after %.1f s at %p\n", HOPPER_WAIT_TIMEOUT_NS * 1e-9,
             static_cast<void*>(semaphore));
      __trap();
    }
#endif
  }
  atomicSub_system(semaphore, 1);  // only this rank waits on it: nobody else takes one between
}

// Eight elements (16 bytes) a thread where the pointers allow it, else one.
template <typename T>
__global__ void add_kernel(T* out, const T* a, const T* b, size_t count, bool vectors) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (vectors) {
    for (; i < count / 8; i += stride) {
      const uint4 va = reinterpret_cast<const uint4*>(a)[i], vb = reinterpret_cast<const uint4*>(b)[i];
      const T* ea = reinterpret_cast<const T*>(&va);
      const T* eb = reinterpret_cast<const T*>(&vb);
      uint4 vo;
      T* eo = reinterpret_cast<T*>(&vo);
#pragma unroll
      for (int e = 0; e < 8; ++e) eo[e] = T(float(ea[e]) + float(eb[e]));
      reinterpret_cast<uint4*>(out)[i] = vo;
    }
    return;
  }
  for (; i < count; i += stride) out[i] = T(float(a[i]) + float(b[i]));
}

}  // namespace

void load_kernels() {
  cudaFuncAttributes attributes;
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, signal_kernel));
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, wait_kernel));
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, add_kernel<__half>));
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, add_kernel<__nv_bfloat16>));
}

void signal(int* semaphore, cudaStream_t stream) {
  signal_kernel<<<1, 1, 0, stream>>>(semaphore);
  CUDA_CHECK(cudaGetLastError());
}

void wait(int* semaphore, cudaStream_t stream) {
  wait_kernel<<<1, 1, 0, stream>>>(semaphore);
  CUDA_CHECK(cudaGetLastError());
}

template <typename T>
void add(T* out, const T* a, const T* b, size_t count, cudaStream_t stream) {
  if (count == 0) return;
  const bool vectors =
      count % 8 == 0 &&
      (reinterpret_cast<uintptr_t>(out) | reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b)) % 16 == 0;
  const size_t items = vectors ? count / 8 : count;
  const int threads = 256;
  const int blocks = int(std::min<size_t>((items + threads - 1) / threads, 132 * 16));
  add_kernel<T><<<blocks, threads, 0, stream>>>(out, a, b, count, vectors);
  CUDA_CHECK(cudaGetLastError());
}

template void add<__half>(__half*, const __half*, const __half*, size_t, cudaStream_t);
template void add<__nv_bfloat16>(__nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, size_t, cudaStream_t);

}  // namespace v11_tensor_parallel
