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

// Stream-K's rule for the last wave of `units` on `resident` clusters (StreamKScheduler::plan): it
// is split when it is part-empty and under four-fifths full. choose() in v9 predicts plans with it.
__host__ __device__ constexpr bool splits_last_wave(long units, long resident) {
  return units % resident != 0 && 5 * (units % resident) < 4 * resident;
}

// [region:grouped_tile]
// A tile's place in the grid of output tiles: its index along M and along N (not elements).
struct TileCoord {
  int m, n;
};

// The index-th tile in grouped order. Blocks that run at the same time share operands in L2 when
// they cover a compact patch of C: tiles are taken `group` rows at a time, column by column
// inside the group, so about `group` rows of A and (concurrent blocks) / `group` columns of B are
// live at once. The last group has the rows that are left. group = 1 is row-by-row order.
__host__ __device__ constexpr TileCoord grouped_tile(int index, int tiles_m, int tiles_n, int group) {
  const int per_group = group * tiles_n;
  const int first_row = index / per_group * group;
  const int rows = tiles_m - first_row < group ? tiles_m - first_row : group;
  const int in_group = index % per_group;
  return {first_row + in_group % rows, in_group / rows};
}
// [/region:grouped_tile]

}  // namespace matmul
