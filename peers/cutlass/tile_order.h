// How CUTLASS's persistent tile scheduler walks the output tiles. Both are runtime arguments
// (Gemm::Arguments::scheduler), so one compiled kernel serves every order: the peers fix theirs,
// the sweep (sweep.cpp) measures them all. No CUTLASS header here: the sweep's driver includes it.
#pragma once
#include <vector>

#include "common/version.h"

namespace cutlass_peers {

// CUTLASS's RasterOrderOptions, value for value (gemm.cuh checks): what a config records as RASTER.
enum Raster : int { raster_heuristic = 0, raster_along_m = 1, raster_along_n = 2 };

struct TileOrder {
  int swizzle;  // max_swizzle_size: tiles walked side by side before the walk moves on (1, 2, 4 or 8)
  Raster raster;  // along M: down a column of tiles first; along N: across a row first
};

// What a Version's config records of its tile order.
inline std::vector<matmul::Param> order_params(TileOrder order) {
  return {{"SWIZZLE", order.swizzle}, {"RASTER", order.raster}};
}

}  // namespace cutlass_peers
