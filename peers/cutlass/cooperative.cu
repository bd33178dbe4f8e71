// cutlass_cooperative: both consumer warpgroups of a CTA work on one 128×256 tile, split by rows.
// The configuration is the best the sweep found on the H200 (fp16, geometric mean over 4096³,
// 8192³ and 16384³: 0.991, 1.020, 1.015 against cuBLAS; docs/v6_tma_store.md has the table, and
// scripts/peer_sweep.sh re-runs it). Each peer has a translation unit of its own, so that the two compile side by side.
#include "peers/cutlass/gemm.cuh"
#include "peers/cutlass/peers.h"

namespace cutlass_peers {

const matmul::Version cooperative = peer<Config<Schedule::cooperative, 128, 256, 64, 2, 1>, 8, raster_along_n>();

}  // namespace cutlass_peers
