#include "common/harness/fill.h"

#include <atomic>
#include <cmath>
#include <random>

#include <cuda_fp8.h>

#include "common/check.h"
#include "common/tiles.h"

namespace matmul {

namespace {

// splitmix64's finalizer: a good 64-bit mix of (seed, index), no state to carry between threads.
__device__ uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <typename T>
__global__ void fill_uniform_kernel(T* data, size_t count, float scale, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const uint64_t r = mix(seed + mix(i));
    const float unit = float(r >> 40) * 0x1p-24f;  // [0, 1) with 24 random bits
    data[i] = T((2.0f * unit - 1.0f) * scale);
  }
}

__global__ void fill_e4m3_kernel(__nv_fp8_e4m3* data, size_t count, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const float unit = float(mix(seed + mix(i)) >> 40) * 0x1p-24f;  // [0, 1)
    data[i] = __nv_fp8_e4m3((2.0f * unit - 1.0f) * 448.0f);  // rounds to nearest, saturating
  }
}

__global__ void fill_scales_kernel(float* data, size_t count, uint64_t seed, int spread, int64_t rows,
                                   int outlier_every) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const float unit = float(mix(seed + mix(i)) >> 40) * 0x1p-24f;
    const int e = int(unit * float(2 * spread + 1)) - spread;
    const bool outlier = outlier_every > 0 && int64_t(i) % rows % outlier_every == 0;
    data[i] = exp2f(float(e + (outlier ? 6 : 0)));
  }
}

__global__ void fill_bits_kernel(uint16_t* data, size_t count, uint16_t bits) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    data[i] = bits;
}

constexpr int threads = 256;
unsigned blocks_for(size_t count) { return unsigned(std::min<size_t>(ceil_div<size_t>(count, threads), 65536)); }

}  // namespace

uint64_t fresh_seed() {
  static const uint64_t base = (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  static std::atomic<uint64_t> counter{0};
  return base + 0x9e3779b97f4a7c15ull * ++counter;
}

float input_scale(int64_t k) { return std::sqrt(3.0f) / std::pow(float(k), 0.25f); }

void fill_uniform(void* data, size_t count, DType t, float scale, uint64_t seed, cudaStream_t stream) {
  if (count == 0) return;
  if (t == DType::fp16)
    fill_uniform_kernel<<<blocks_for(count), threads, 0, stream>>>(static_cast<__half*>(data), count, scale, seed);
  else
    fill_uniform_kernel<<<blocks_for(count), threads, 0, stream>>>(static_cast<__nv_bfloat16*>(data), count, scale,
                                                                   seed);
  CUDA_CHECK(cudaGetLastError());
}

void fill_e4m3(void* data, size_t count, uint64_t seed, cudaStream_t stream) {
  if (count == 0) return;
  fill_e4m3_kernel<<<blocks_for(count), threads, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(data), count, seed);
  CUDA_CHECK(cudaGetLastError());
}

void fill_scales(float* data, size_t count, uint64_t seed, int spread, int64_t rows, int outlier_every,
                 cudaStream_t stream) {
  if (count == 0) return;
  fill_scales_kernel<<<blocks_for(count), threads, 0, stream>>>(data, count, seed, spread, rows, outlier_every);
  CUDA_CHECK(cudaGetLastError());
}

void fill_bits(void* data, size_t count, uint16_t bits, cudaStream_t stream) {
  if (count == 0) return;
  fill_bits_kernel<<<blocks_for(count), threads, 0, stream>>>(static_cast<uint16_t*>(data), count, bits);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace matmul
