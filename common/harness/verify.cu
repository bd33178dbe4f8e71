#include "common/harness/verify.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/check.h"
#include "common/harness/device_buffer.h"
#include "common/harness/fill.h"
#include "common/tiles.h"

namespace matmul {

namespace {

constexpr int threads = 256;
unsigned blocks_for(size_t count) { return unsigned(std::clamp<size_t>(ceil_div<size_t>(count, threads), 1, 8192)); }

struct Tally {
  double err2, ref2;
  unsigned long long unwritten, nonfinite;
};

__device__ double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__device__ unsigned long long warp_sum(unsigned long long v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

template <typename T>
__global__ void compare_kernel(const T* c, const float* ref, size_t count, Tally* out) {
  double err2 = 0, ref2 = 0;
  unsigned long long unwritten = 0, nonfinite = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const double r = ref[i];
    ref2 += r * r;
    if (reinterpret_cast<const uint16_t*>(c)[i] == poison_bits) {
      ++unwritten;
    } else if (!isfinite(float(c[i]))) {
      ++nonfinite;
    } else {
      const double d = double(float(c[i])) - r;
      err2 += d * d;
    }
  }
  err2 = warp_sum(err2);
  ref2 = warp_sum(ref2);
  unwritten = warp_sum(unwritten);
  nonfinite = warp_sum(nonfinite);
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&out->err2, err2);
    atomicAdd(&out->ref2, ref2);
    atomicAdd(&out->unwritten, unwritten);
    atomicAdd(&out->nonfinite, nonfinite);
  }
}

// Counts the indices i in [0, count) where pred(i) holds.
template <typename Pred>
__global__ void count_kernel(Pred pred, size_t count, unsigned long long* out) {
  unsigned long long n = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    n += pred(i);
  n = warp_sum(n);
  if (threadIdx.x % 32 == 0) atomicAdd(out, n);
}

struct NotEqual {
  const uint16_t* data;
  uint16_t bits;
  __device__ bool operator()(size_t i) const { return data[i] != bits; }
};

struct Differ {
  const uint16_t *a, *b;
  __device__ bool operator()(size_t i) const { return a[i] != b[i]; }
};

// A written, finite element further from the reference than u·(2·|ref| + 8·rms) (verify.h).
template <typename T>
struct Outlier {
  const T* c;
  const float* ref;
  double u, rms;
  __device__ bool operator()(size_t i) const {
    const float x = float(c[i]);
    if (reinterpret_cast<const uint16_t*>(c)[i] == poison_bits || !isfinite(x)) return false;  // counted apart
    return fabs(double(x) - ref[i]) > u * (2 * fabs(double(ref[i])) + 8 * rms);
  }
};

template <typename Pred>
int64_t count_where(Pred pred, size_t count) {
  DeviceBuffer total(sizeof(unsigned long long));
  CUDA_CHECK(cudaMemset(total.get(), 0, total.bytes()));
  count_kernel<<<blocks_for(count), threads>>>(pred, count, static_cast<unsigned long long*>(total.get()));
  CUDA_CHECK(cudaGetLastError());
  unsigned long long n = 0;
  CUDA_CHECK(cudaMemcpy(&n, total.get(), sizeof n, cudaMemcpyDeviceToHost));
  return int64_t(n);
}

}  // namespace

std::string Verification::failure() const {
  char text[160];
  if (unwritten > 0) return std::to_string(unwritten) + " elements of C never written";
  if (nonfinite > 0) return std::to_string(nonfinite) + " elements of C are NaN or Inf";
  if (guard_damage > 0) return std::to_string(guard_damage) + " guard-band words around C overwritten";
  if (outliers > 0)
    return std::to_string(outliers) + " elements of C further from the reference than " + dtype_name(dtype) +
           " rounding allows";
  if (!(rel_err <= tolerance(dtype))) {
    std::snprintf(text, sizeof text, "relative error %.3g above the %s tolerance %.0e", rel_err, dtype_name(dtype),
                  tolerance(dtype));
    return text;
  }
  if (rerun_differences > 0)
    return std::to_string(rerun_differences) + " elements differ between two runs on the same inputs";
  return "";
}

Verification compare_to_reference(DType t, const void* c, const float* ref, size_t count) {
  DeviceBuffer tally(sizeof(Tally));
  CUDA_CHECK(cudaMemset(tally.get(), 0, tally.bytes()));
  auto* out = static_cast<Tally*>(tally.get());
  if (t == DType::fp16)
    compare_kernel<<<blocks_for(count), threads>>>(static_cast<const __half*>(c), ref, count, out);
  else
    compare_kernel<<<blocks_for(count), threads>>>(static_cast<const __nv_bfloat16*>(c), ref, count, out);
  CUDA_CHECK(cudaGetLastError());
  Tally host{};
  CUDA_CHECK(cudaMemcpy(&host, out, sizeof host, cudaMemcpyDeviceToHost));

  Verification v;
  v.dtype = t;
  v.rel_err = host.ref2 > 0 ? std::sqrt(host.err2 / host.ref2) : std::sqrt(host.err2);
  v.unwritten = int64_t(host.unwritten);
  v.nonfinite = int64_t(host.nonfinite);
  const double rms = std::sqrt(host.ref2 / double(count));
  if (t == DType::fp16)
    v.outliers = count_where(Outlier<__half>{static_cast<const __half*>(c), ref, unit_roundoff(t), rms}, count);
  else
    v.outliers =
        count_where(Outlier<__nv_bfloat16>{static_cast<const __nv_bfloat16*>(c), ref, unit_roundoff(t), rms}, count);
  return v;
}

int64_t count_not_equal(const void* data, size_t count, uint16_t bits) {
  return count_where(NotEqual{static_cast<const uint16_t*>(data), bits}, count);
}

int64_t count_differences(const void* a, const void* b, size_t count) {
  return count_where(Differ{static_cast<const uint16_t*>(a), static_cast<const uint16_t*>(b)}, count);
}

}  // namespace matmul
