// v2_pipelined: TMA loads and WGMMA over a ring buffer of STAGES shared-memory stages.
//
// v1 loaded a K-step's tiles and then waited for them: the tensor cores idled through every
// load. Here the tiles live in a ring of STAGES stages, each with its own mbarrier. Before the
// loop, one thread asks for the first STAGES - 1 K-steps; in the loop, while the warpgroup
// computes K-step k from its stage, the loads for K-step k + STAGES - 1 are already in flight.
// A stage is still handed back to the loader with __syncthreads(): v3 replaces exactly that.
#include <cuda.h>

#include "common/check.h"
#include "common/hopper/fragment.cuh"
#include "common/hopper/launch.h"
#include "common/hopper/mbarrier.cuh"
#include "common/hopper/tensor_map.h"
#include "common/hopper/tma.cuh"
#include "common/hopper/trace.cuh"
#include "common/hopper/wgmma.cuh"
#include "common/problem.h"
#include "common/tiles.h"
#include "v2_pipelined/matmul.h"

namespace v2_pipelined {

// [region:constants]
// The tile, chosen by measurement (this version's page in docs/). BK = 64 two-byte elements is
// one 128-byte swizzled row, the widest box row TMA's 128-byte swizzle allows. A WGMMA covers
// 64 rows, so the warpgroup issues BM / 64 of them per 16-wide K slice, each with BN/2 fp32
// accumulators per thread.
constexpr int BM = 128;
constexpr int BN = 128;
constexpr int BK = 64;
constexpr int STAGES = 2;  // stages in the ring: loads run up to STAGES - 1 - MMAS_IN_FLIGHT K-steps ahead
constexpr int MMAS_IN_FLIGHT = 0;  // K-steps whose WGMMAs may still run past the block's barrier
constexpr int THREADS = hopper::warpgroup_threads;  // one warpgroup
static_assert(STAGES > MMAS_IN_FLIGHT + 1, "the stage being computed, those in flight and one being loaded");
// [/region:constants]

// [region:smem]
// STAGES buffers for A and B, each stage with its own barrier.
// Each tile starts on a 1024-byte boundary: the 128-byte swizzle pattern repeats every 8 rows
// of 128 bytes, and both TMA and the WGMMA descriptor assume the pattern starts at the tile.
template <typename T>
struct SharedStorage {
  alignas(hopper::swizzle_atom_bytes) T a[STAGES][BM * BK];  // BM rows of A per stage, K-major, swizzled
  alignas(hopper::swizzle_atom_bytes) T b[STAGES][BN * BK];  // BN rows of B per stage, K-major, swizzled
  uint64_t full[STAGES];  // full[s] completes when both tiles of stage s have landed
};
// [/region:smem]

// [region:kernel]
template <typename T>
__global__ void __launch_bounds__(THREADS)
    matmul_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, T* c, int m,
                  int n, int k) {
  extern __shared__ unsigned char smem_bytes[];
  auto& smem = *reinterpret_cast<SharedStorage<T>*>(matmul::align_up(smem_bytes, hopper::swizzle_atom_bytes));
  const int tiles_n = matmul::ceil_div(n, BN);
  const int tile_row = int(blockIdx.x / tiles_n) * BM;
  const int tile_col = int(blockIdx.x % tiles_n) * BN;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) hopper::mbarrier_init(&smem.full[s], 1);  // one arrival: the loader
    hopper::fence_barrier_init();
  }
  __syncthreads();

  // K-step k_tile goes to stage k_tile % STAGES.
  const int k_tiles = matmul::ceil_div(k, BK);
  const auto load = [&](int k_tile) {
    const int stage = k_tile % STAGES;
    hopper::mbarrier_arrive_expect_tx(&smem.full[stage], sizeof(smem.a[stage]) + sizeof(smem.b[stage]));
    hopper::tma_load_2d(smem.a[stage], &a_map, &smem.full[stage], k_tile * BK, tile_row);
    hopper::tma_load_2d(smem.b[stage], &b_map, &smem.full[stage], k_tile * BK, tile_col);
  };
  hopper::trace::Lane lane(hopper::trace::warpgroup);
  lane.mark(hopper::trace::load);
  // Prefill: the first STAGES - 1 - MMAS_IN_FLIGHT K-steps (fewer when K is short).
  if (threadIdx.x == 0)
    for (int k_tile = 0; k_tile < STAGES - 1 - MMAS_IN_FLIGHT && k_tile < k_tiles; ++k_tile) load(k_tile);

  float acc[BM / hopper::wgmma_m][BN / 2] = {};
  int stage = 0, phase = 0;  // the stage being computed, and the parity of its barrier's phase
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    // The stage this load fills was computed MMAS_IN_FLIGHT + 1 iterations ago: the previous
    // iteration's wait and __syncthreads() saw its WGMMAs complete in every warp. Near the end there
    // is nothing left to load: the ring drains.
    lane.mark(hopper::trace::load);
    if (threadIdx.x == 0 && k_tile + STAGES - 1 - MMAS_IN_FLIGHT < k_tiles) load(k_tile + STAGES - 1 - MMAS_IN_FLIGHT);
    lane.mark(hopper::trace::wait_full);
    hopper::mbarrier_wait(&smem.full[stage], phase);
    lane.mark(hopper::trace::compute);

    hopper::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / hopper::wgmma_k; ++kk) {
#pragma unroll
      for (int i = 0; i < BM / hopper::wgmma_m; ++i) {
        // Moving along K inside a swizzled row: 16 elements = 32 bytes further; the hardware
        // applies the swizzle to the address it computes.
        const uint64_t desc_a =
            hopper::smem_descriptor(&smem.a[stage][i * hopper::wgmma_m * BK + kk * hopper::wgmma_k]);
        const uint64_t desc_b = hopper::smem_descriptor(&smem.b[stage][kk * hopper::wgmma_k]);
        hopper::wgmma<T, BN>(acc[i], desc_a, desc_b);
      }
    }
    hopper::wgmma_commit();
    hopper::wgmma_wait<MMAS_IN_FLIGHT>();
#pragma unroll
    for (int i = 0; i < BM / hopper::wgmma_m; ++i) hopper::fence_accumulators(acc[i]);
    lane.mark(hopper::trace::wait_other);
    __syncthreads();  // every warp is past its wait before thread 0 refills the stage it freed
    if (++stage == STAGES) {  // a lap of the ring: the barriers' next phase
      stage = 0;
      phase ^= 1;
    }
  }
  if (MMAS_IN_FLIGHT > 0) {  // the last K-steps' WGMMAs, still in flight
    hopper::wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < BM / hopper::wgmma_m; ++i) hopper::fence_accumulators(acc[i]);
  }

  lane.mark(hopper::trace::store);
#pragma unroll
  for (int i = 0; i < BM / hopper::wgmma_m; ++i)
    hopper::store_fragment<BN>(acc[i], c, tile_row + i * hopper::wgmma_m, tile_col, m, n);
}
// [/region:kernel]

// [region:launch]
template <typename T>
void launch(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream) {
  matmul::validate_shape({m, n, k});
  matmul::validate_operands(a, b, c);
  const CUtensorMap a_map = hopper::make_tile_map(a, hopper::tile_map_params(m, k, BM, BK));
  const CUtensorMap b_map = hopper::make_tile_map(b, hopper::tile_map_params(n, k, BN, BK));
  const int64_t tiles = int64_t(matmul::ceil_div(m, BM)) * matmul::ceil_div(n, BN);
  matmul::validate_grid(tiles);
  const size_t smem_bytes = sizeof(SharedStorage<T>) + hopper::swizzle_atom_bytes;  // + room to align the start
  hopper::prepare<matmul_kernel<T>>(THREADS, smem_bytes);  // the shared-memory allowance, once per device
  CUDA_CHECK(hopper::trace::attach(stream));
  matmul_kernel<T><<<unsigned(tiles), THREADS, smem_bytes, stream>>>(a_map, b_map, c, m, n, k);
  CUDA_CHECK(cudaGetLastError());
}
// [/region:launch]

void matmul(const __half* a, const __half* b, __half* c, int m, int n, int k, cudaStream_t stream) {
  launch(a, b, c, m, n, k, stream);
}

void matmul(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k,
            cudaStream_t stream) {
  launch(a, b, c, m, n, k, stream);
}

const matmul::Version version{
    "v2_pipelined",
    "ring buffer of STAGES stages (TMA + WGMMA)",
    matmul,
    matmul,
    {
        {"BM", BM},
        {"BN", BN},
        {"BK", BK},
        {"STAGES", STAGES},
        {"MMAS_IN_FLIGHT", MMAS_IN_FLIGHT},
        {"THREADS", THREADS},
    },
};

}  // namespace v2_pipelined
