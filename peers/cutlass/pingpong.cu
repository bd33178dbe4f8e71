// cutlass_pingpong: each consumer warpgroup of a CTA takes a 128×128 tile of its own, one computing
// while the other runs its epilogue. The configuration is the best the sweep found on the H200
// (issue 17; scripts/peer_sweep.sh re-runs it).
#include "peers/cutlass/gemm.cuh"
#include "peers/cutlass/peers.h"

namespace cutlass_peers {

const matmul::Version pingpong = peer<Config<Schedule::pingpong, 128, 128, 64, 2, 1>, 4, raster_heuristic>();

}  // namespace cutlass_peers
