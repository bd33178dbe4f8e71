// Tile arithmetic shared by every launcher (host and device).
#pragma once
#include <cuda_runtime.h>  // __host__ __device__ in host-only translation units

#include <cstdint>

namespace matmul {

// Number of size-`tile` pieces needed to cover `extent`, the last one possibly partial.
// (extent + tile - 1) / tile would overflow for an extent near the type's maximum.
template <typename I>
__host__ __device__ constexpr I ceil_div(I extent, I tile) {
  return extent / tile + (extent % tile != 0);
}

// `p` moved up to the next multiple of `alignment` (a power of two).
template <typename P>
__host__ __device__ P* align_up(P* p, uintptr_t alignment) {
  return reinterpret_cast<P*>((reinterpret_cast<uintptr_t>(p) + alignment - 1) & ~(alignment - 1));
}

}  // namespace matmul
