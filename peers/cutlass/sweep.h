// The configuration sweep (sweep.cpp): CUTLASS's kernels in several compile-time configurations,
// each run in every tile order. No CUTLASS header here: the driver includes it.
#pragma once
#include <vector>

#include "common/version.h"
#include "peers/cutlass/tile_order.h"

namespace cutlass_peers {

// The tile order the sweep's kernels run in: the driver sets it before each run (it runs one at a time).
extern TileOrder sweep_order;

// Each schedule's configurations, as Versions whose entry points run in sweep_order and whose
// config holds the tile and the cluster. A null bf16 entry point: measured in fp16 only, which
// keeps the sweep to the configurations worth a second look, and its compiling short.
std::vector<matmul::Version> cooperative_sweep();
std::vector<matmul::Version> pingpong_sweep();

}  // namespace cutlass_peers
