// v4_two_consumers: one producer warpgroup and two consumer warpgroups that share each loaded tile.
//
// v3's single consumer was one stream of WGMMAs, and its tile was as wide as one warpgroup's
// registers allow. Here two consumer warpgroups split a 128 × 256 tile by rows: both read every
// B stage, so a stage is empty only when both have released it, and the tensor cores get two
// independent streams. Their accumulators fit because the producer, which needs almost no
// registers, hands most of its own to them (setmaxnreg). The ring's stage and phase bookkeeping
// moves into hopper::Pipeline, and blocks take the output tiles in grouped order so that the
// ones running at the same time share their rows of A and columns of B in L2.
#include <cuda.h>

#include "common/check.h"
#include "common/hopper/fragment.cuh"
#include "common/hopper/launch.h"
#include "common/hopper/pipeline.cuh"
#include "common/hopper/registers.cuh"
#include "common/hopper/tensor_map.h"
#include "common/hopper/tma.cuh"
#include "common/hopper/trace.cuh"
#include "common/hopper/wgmma.cuh"
#include "common/problem.h"
#include "common/tiles.h"
#include "v4_two_consumers/matmul.h"

namespace v4_two_consumers {

// [region:constants]
// The tile, chosen by arithmetic and checked by measurement (this version's page in docs/).
// BK = 64 two-byte elements is one 128-byte swizzled row, the widest box row TMA's 128-byte
// swizzle allows. Each consumer owns BM / CONSUMERS rows of the tile: (BM / CONSUMERS) / 64
// WGMMAs per 16-wide K slice, each with BN/2 fp32 accumulators per thread.
constexpr int BM = 128;
constexpr int BN = 256;
constexpr int BK = 64;
constexpr int STAGES = 4;  // stages in the ring: the consumers hold 1 + MMAS_IN_FLIGHT, the producer fills the rest
constexpr int MMAS_IN_FLIGHT = 1;  // K-steps whose WGMMAs may still run when the next ones issue
constexpr int GROUP = 8;  // rows of tiles per group of the grouped order (1: row by row)
constexpr int CONSUMERS = 2;
constexpr int CONSUMER_ROWS = BM / CONSUMERS;
constexpr int THREADS = hopper::warpgroup_threads * (1 + CONSUMERS);  // warpgroup 0 produces, the others consume
static_assert(STAGES > MMAS_IN_FLIGHT, "the stage being computed and those in flight are all held");
static_assert(CONSUMER_ROWS % hopper::wgmma_m == 0, "each consumer owns whole WGMMA rows");
// [/region:constants]

// [region:registers]
// One block per SM: 65,536 registers for 384 threads, 168 each at launch (a multiple of 8). The
// producer keeps PRODUCER_REGISTERS and the consumers take what it frees; the three must fit in
// what the launch gave, or a consumer's setmaxnreg.inc waits forever for registers.
constexpr int LAUNCH_REGISTERS = 65536 / THREADS / 8 * 8;
constexpr int PRODUCER_REGISTERS = 40;
constexpr int CONSUMER_REGISTERS = 232;
static_assert(PRODUCER_REGISTERS + CONSUMERS * CONSUMER_REGISTERS <= (1 + CONSUMERS) * LAUNCH_REGISTERS,
              "the consumers claim more registers than the producer frees");
// [/region:registers]

// [region:smem]
// STAGES buffers for A and B, and the pipeline's pair of barriers for each stage.
// Each tile starts on a 1024-byte boundary: the 128-byte swizzle pattern repeats every 8 rows
// of 128 bytes, and both TMA and the WGMMA descriptor assume the pattern starts at the tile.
template <typename T>
struct SharedStorage {
  alignas(hopper::swizzle_atom_bytes) T a[STAGES][BM * BK];  // BM rows of A per stage, K-major, swizzled
  alignas(hopper::swizzle_atom_bytes) T b[STAGES][BN * BK];  // BN rows of B per stage, K-major, swizzled
  hopper::Pipeline<STAGES> pipe;
};
// [/region:smem]

// [region:kernel]
template <typename T>
__global__ void __launch_bounds__(THREADS, 1)
    matmul_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, T* c, int m,
                  int n, int k) {
  extern __shared__ unsigned char smem_bytes[];
  auto& smem = *reinterpret_cast<SharedStorage<T>*>(matmul::align_up(smem_bytes, hopper::swizzle_atom_bytes));
  const matmul::TileCoord tile =
      matmul::grouped_tile(int(blockIdx.x), matmul::ceil_div(m, BM), matmul::ceil_div(n, BN), GROUP);
  const int tile_row = tile.m * BM;
  const int tile_col = tile.n * BN;

  if (threadIdx.x == 0) smem.pipe.init(CONSUMERS);  // a stage is empty once every consumer released it
  __syncthreads();  // the last block-wide barrier: it publishes the initialised barriers

  const int k_tiles = matmul::ceil_div(k, BK);
  const int warpgroup = threadIdx.x / hopper::warpgroup_threads;
  if (warpgroup == 0) {
    hopper::release_registers<PRODUCER_REGISTERS>();
    if (threadIdx.x == 0) {
      hopper::PipelineState<STAGES> write;
      hopper::trace::Lane lane(hopper::trace::producer);
      for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
        lane.mark(hopper::trace::wait_empty);
        uint64_t* full = smem.pipe.producer_acquire(write, sizeof(smem.a[0]) + sizeof(smem.b[0]));
        lane.mark(hopper::trace::load);
        hopper::tma_load_2d(smem.a[write.stage], &a_map, full, k_tile * BK, tile_row);
        hopper::tma_load_2d(smem.b[write.stage], &b_map, full, k_tile * BK, tile_col);
        write.advance();
      }
    }
    return;  // the producer's other 127 threads have nothing to do
  }

  hopper::claim_registers<CONSUMER_REGISTERS>();
  const int consumer_row = (warpgroup - 1) * CONSUMER_ROWS;  // this consumer's first row in the tile
  float acc[CONSUMER_ROWS / hopper::wgmma_m][BN / 2] = {};
  hopper::PipelineState<STAGES> read, release;  // release trails read by MMAS_IN_FLIGHT K-steps
  hopper::trace::Lane lane(hopper::trace::consumer, warpgroup - 1);
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    lane.mark(hopper::trace::wait_full);
    smem.pipe.consumer_wait(read);
    lane.mark(hopper::trace::compute);

    hopper::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / hopper::wgmma_k; ++kk) {
#pragma unroll
      for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i) {
        // Moving along K inside a swizzled row: 16 elements = 32 bytes further; the hardware
        // applies the swizzle to the address it computes.
        const uint64_t desc_a = hopper::smem_descriptor(
            &smem.a[read.stage][(consumer_row + i * hopper::wgmma_m) * BK + kk * hopper::wgmma_k]);
        const uint64_t desc_b = hopper::smem_descriptor(&smem.b[read.stage][kk * hopper::wgmma_k]);
        hopper::wgmma<T, BN>(acc[i], desc_a, desc_b);
      }
    }
    hopper::wgmma_commit();
    hopper::wgmma_wait<MMAS_IN_FLIGHT>();
#pragma unroll
    for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i) hopper::fence_accumulators(acc[i]);
    if (k_tile >= MMAS_IN_FLIGHT) {
      if (threadIdx.x % hopper::warpgroup_threads == 0) smem.pipe.consumer_release(release);
      release.advance();
    }
    read.advance();
  }
  hopper::wgmma_wait<0>();
#pragma unroll
  for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i) hopper::fence_accumulators(acc[i]);

  lane.mark(hopper::trace::store);
#pragma unroll
  for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i)
    hopper::store_fragment<BN>(acc[i], c, tile_row + consumer_row + i * hopper::wgmma_m, tile_col, m, n);
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
    "v4_two_consumers",
    "two consumer warpgroups, setmaxnreg, Pipeline, grouped order",
    matmul,
    matmul,
    {
        {"BM", BM},
        {"BN", BN},
        {"BK", BK},
        {"STAGES", STAGES},
        {"MMAS_IN_FLIGHT", MMAS_IN_FLIGHT},
        {"GROUP", GROUP},
        {"CONSUMERS", CONSUMERS},
        {"THREADS", THREADS},
    },
};

}  // namespace v4_two_consumers
