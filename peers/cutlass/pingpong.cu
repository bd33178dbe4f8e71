// cutlass_pingpong: each consumer warpgroup of a CTA takes a 128×128 tile of its own, one computing
// while the other runs its epilogue. The configuration is the best the sweep found on the H200
// (fp16, geometric mean over 4096³, 8192³ and 16384³: 1.016, 1.049, 1.031 against cuBLAS, without a
// cluster; docs/v6_tma_store.md has the table, and scripts/peer_sweep.sh re-runs it).
#include "peers/cutlass/gemm.cuh"
#include "peers/cutlass/peers.h"

namespace cutlass_peers {

const matmul::Version pingpong = peer<Config<Schedule::pingpong, 128, 128, 64, 1, 1>, 8, raster_along_m>();

}  // namespace cutlass_peers
