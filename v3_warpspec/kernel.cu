// v3_warpspec: a producer warpgroup and a consumer warpgroup, talking through mbarriers.
//
// v2 still met as a whole block at __syncthreads() after every K-step: the loader could not run
// ahead, and the tensor cores drained each time. Here the two jobs go to two warpgroups that run
// different code. Warpgroup 0, the producer, only loads: one thread waits until a stage is empty,
// arms its `full` barrier and issues the copies. Warpgroup 1, the consumer, only computes: it waits
// until a stage is full, runs the WGMMAs and marks the stage empty. Each stage has the pair of
// barriers; nobody else waits for anybody, and the block never synchronises inside the loop.
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
#include "v3_warpspec/matmul.h"

namespace v3_warpspec {

// [region:constants]
// The tile, chosen by measurement (this version's page in docs/). BK = 64 two-byte elements is
// one 128-byte swizzled row, the widest box row TMA's 128-byte swizzle allows. A WGMMA covers
// 64 rows, so the warpgroup issues BM / 64 of them per 16-wide K slice, each with BN/2 fp32
// accumulators per thread. 256 threads that need 218 registers each leave room for one block
// per SM, so the registers v2 shared among its blocks go to one wider tile: BN = 192.
constexpr int BM = 128;
constexpr int BN = 192;
constexpr int BK = 64;
constexpr int STAGES = 4;  // stages in the ring: the consumer holds 1 + MMAS_IN_FLIGHT, the producer fills the rest
constexpr int MMAS_IN_FLIGHT = 1;  // K-steps whose WGMMAs may still run when the next ones issue
constexpr int THREADS = 256;  // warpgroup 0 produces, warpgroup 1 consumes
static_assert(STAGES > MMAS_IN_FLIGHT, "the stage being computed and those in flight are all held");
// [/region:constants]

// [region:smem]
// STAGES buffers for A and B, each stage with a pair of barriers.
// Each tile starts on a 1024-byte boundary: the 128-byte swizzle pattern repeats every 8 rows
// of 128 bytes, and both TMA and the WGMMA descriptor assume the pattern starts at the tile.
template <typename T>
struct SharedStorage {
  alignas(hopper::swizzle_atom_bytes) T a[STAGES][BM * BK];  // BM rows of A per stage, K-major, swizzled
  alignas(hopper::swizzle_atom_bytes) T b[STAGES][BN * BK];  // BN rows of B per stage, K-major, swizzled
  uint64_t full[STAGES];  // full[s] completes when both tiles of stage s have landed
  uint64_t empty[STAGES];  // empty[s] completes when the consumer is done reading stage s
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
    for (int s = 0; s < STAGES; ++s) {
      hopper::mbarrier_init(&smem.full[s], 1);  // one arrival: the producer's thread
      hopper::mbarrier_init(&smem.empty[s], 1);  // one arrival: the consumer's first thread
    }
    hopper::fence_barrier_init();
  }
  __syncthreads();  // the last block-wide barrier: it publishes the initialised barriers

  const int k_tiles = matmul::ceil_div(k, BK);
  const bool producer = threadIdx.x < hopper::warpgroup_threads;
  if (producer) {
    if (threadIdx.x == 0) {
      // The producer's phase starts at 0 but it waits for parity phase ^ 1: on a fresh barrier that
      // is the phase "before" phase 0, already complete, so the first lap of the ring needs no
      // consumer. From the second lap on it waits for the consumer to empty the stage.
      int stage = 0, phase = 0;
      hopper::trace::Lane lane(hopper::trace::producer);
      for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
        lane.mark(hopper::trace::wait_empty);
        hopper::mbarrier_wait(&smem.empty[stage], phase ^ 1);
        lane.mark(hopper::trace::load);
        hopper::mbarrier_arrive_expect_tx(&smem.full[stage], sizeof(smem.a[stage]) + sizeof(smem.b[stage]));
        hopper::tma_load_2d(smem.a[stage], &a_map, &smem.full[stage], k_tile * BK, tile_row);
        hopper::tma_load_2d(smem.b[stage], &b_map, &smem.full[stage], k_tile * BK, tile_col);
        if (++stage == STAGES) {
          stage = 0;
          phase ^= 1;
        }
      }
    }
    return;  // the producer's other 127 threads have nothing to do
  }

  hopper::trace::Lane lane(hopper::trace::consumer);
  float acc[BM / hopper::wgmma_m][BN / 2] = {};
  int stage = 0, phase = 0;  // the stage being computed, and the parity of its barrier's phase
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
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
    // The consumer no longer has to wait for the block, so it need not drain the tensor cores
    // either: it waits only until MMAS_IN_FLIGHT K-steps remain in flight, and the stage of the
    // oldest K-step that finished goes back to the producer.
    hopper::wgmma_wait<MMAS_IN_FLIGHT>();
#pragma unroll
    for (int i = 0; i < BM / hopper::wgmma_m; ++i) hopper::fence_accumulators(acc[i]);
    if (threadIdx.x == hopper::warpgroup_threads && k_tile >= MMAS_IN_FLIGHT)
      hopper::mbarrier_arrive(&smem.empty[(k_tile - MMAS_IN_FLIGHT) % STAGES]);
    if (++stage == STAGES) {  // a lap of the ring: the barriers' next phase
      stage = 0;
      phase ^= 1;
    }
  }
  hopper::wgmma_wait<0>();
#pragma unroll
  for (int i = 0; i < BM / hopper::wgmma_m; ++i) hopper::fence_accumulators(acc[i]);

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
    "v3_warpspec",
    "producer and consumer warpgroups, full/empty mbarriers",
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

}  // namespace v3_warpspec
