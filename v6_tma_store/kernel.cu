// v6_tma_store: the epilogue goes out through shared memory and the copy engine.
//
// v5 stored C straight from the accumulators: every thread issued 64 four-byte stores per tile,
// each covering half a 32-byte sector, and the tensor cores idled until the last one left. Here
// each consumer writes its accumulators, converted, into a swizzled box in shared memory with
// stmatrix (a whole 8x8 matrix per instruction, no bank conflicts), fences them into the async
// proxy, and one thread hands the box to TMA, which writes full lines to global memory while the
// consumers go back to their MMAs. Two boxes per consumer: one fills while TMA reads the other.
//
// The consumers split each tile's rows, as in v5 (cooperative). pingpong.cu is this kernel with
// the other schedule of the consumers; its diff against this file is that schedule.
#include <cuda.h>

#include "common/check.h"
#include "common/hopper/fragment.cuh"
#include "common/hopper/launch.h"
#include "common/hopper/named_barrier.cuh"
#include "common/hopper/pipeline.cuh"
#include "common/hopper/registers.cuh"
#include "common/hopper/tensor_map.h"
#include "common/hopper/tile_scheduler.cuh"
#include "common/hopper/tma.cuh"
#include "common/hopper/trace.cuh"
#include "common/hopper/wgmma.cuh"
#include "common/problem.h"
#include "common/tiles.h"
#include "v6_tma_store/matmul.h"

namespace v6_tma_store {

// [region:constants]
// The tile, chosen by arithmetic and checked by measurement (this version's page in docs/).
// BK = 64 two-byte elements is one 128-byte swizzled row, the widest box row TMA's 128-byte
// swizzle allows. Each consumer computes CONSUMER_ROWS × BN of C: CONSUMER_ROWS / 64 WGMMAs per
// 16-wide K slice, each with BN/2 fp32 accumulators per thread.
constexpr int BM = 128;
constexpr int BN = 256;
constexpr int BK = 64;
constexpr int STAGES = 4;  // stages in the ring: the consumers hold 1 + MMAS_IN_FLIGHT, the producer fills the rest
constexpr int MMAS_IN_FLIGHT = 1;  // K-steps whose WGMMAs may still run when the next ones issue
constexpr int GROUP = 8;  // rows of tiles per group of the grouped order (1: row by row)
using Scheduler = hopper::TileScheduler<GROUP>;  // the scheduler role, in common/hopper
constexpr int CONSUMERS = 2;
constexpr int CONSUMER_ROWS = BM / CONSUMERS;
constexpr int C_BOXES = 2;  // shared-memory boxes per consumer for the TMA store: fill one while one drains
constexpr int THREADS = hopper::warpgroup_threads * (1 + CONSUMERS);  // warpgroup 0 produces, the others consume
static_assert(STAGES > MMAS_IN_FLIGHT, "the stage being computed and those in flight are all held");
static_assert(CONSUMER_ROWS % hopper::wgmma_m == 0, "each consumer owns whole WGMMA rows");
// A box of C: one WGMMA's 64 rows, each one 128-byte swizzled row of C_COLS two-byte elements.
constexpr int C_COLS = hopper::swizzle_bytes / 2;
static_assert(BN % C_COLS == 0, "a consumer's rows go out as whole boxes");
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
// STAGES buffers for A and B, the pipeline's pair of barriers for each stage, and each consumer's
// boxes for the TMA store of C. With 4 stages, 2 boxes per consumer are what is left of 227 KB.
// Each tile starts on a 1024-byte boundary: the 128-byte swizzle pattern repeats every 8 rows
// of 128 bytes, and both TMA and the WGMMA descriptor assume the pattern starts at the tile.
template <typename T>
struct SharedStorage {
  alignas(hopper::swizzle_atom_bytes) T a[STAGES][BM * BK];  // BM rows of A per stage, K-major, swizzled
  alignas(hopper::swizzle_atom_bytes) T b[STAGES][BN * BK];  // BN rows of B per stage, K-major, swizzled
  alignas(hopper::swizzle_atom_bytes) T c[CONSUMERS][C_BOXES][hopper::wgmma_m * C_COLS];  // C boxes, swizzled
  hopper::Pipeline<STAGES> pipe;
  int tile[STAGES];  // the tile whose K-step each stage holds, or hopper::no_more_tiles
};
// [/region:smem]

// [region:kernel]
template <typename T>
__global__ void __launch_bounds__(THREADS, 1)
    matmul_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                  const __grid_constant__ CUtensorMap c_map, bool tma_store, T* c, int m, int n, int k,
                  Scheduler scheduler) {
  extern __shared__ unsigned char smem_bytes[];
  auto& smem = *reinterpret_cast<SharedStorage<T>*>(matmul::align_up(smem_bytes, hopper::swizzle_atom_bytes));

  // A stage is empty once every consumer thread released it: each one read the stage's label, and
  // only its own arrival orders that read before the producer writes the next label there.
  if (threadIdx.x == 0) smem.pipe.init(CONSUMERS * hopper::warpgroup_threads);
  __syncthreads();  // the last block-wide barrier: it publishes the initialised barriers

  const int k_tiles = matmul::ceil_div(k, BK);
  const int warpgroup = threadIdx.x / hopper::warpgroup_threads;
  if (warpgroup == 0) {
    hopper::release_registers<PRODUCER_REGISTERS>();
    if (threadIdx.x == 0) {
      hopper::PipelineState<STAGES> write;
      hopper::trace::Lane lane(hopper::trace::producer);
      for (int index = scheduler.first(); index != hopper::no_more_tiles; index = scheduler.next(index)) {
        const matmul::TileCoord tile = scheduler.tile(index);
        lane.next_tile(index);
        for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
          lane.mark(hopper::trace::wait_empty);
          smem.pipe.producer_wait(write);
          lane.mark(hopper::trace::load);
          smem.tile[write.stage] = index;
          uint64_t* full = smem.pipe.producer_expect(write, sizeof(smem.a[0]) + sizeof(smem.b[0]));
          hopper::tma_load_2d(smem.a[write.stage], &a_map, full, k_tile * BK, tile.m * BM);
          hopper::tma_load_2d(smem.b[write.stage], &b_map, full, k_tile * BK, tile.n * BN);
          write.advance();
        }
      }
      lane.mark(hopper::trace::wait_empty);
      smem.pipe.producer_wait(write);  // one more stage, with no data: the consumers' signal to stop
      smem.tile[write.stage] = hopper::no_more_tiles;
      smem.pipe.producer_expect(write, 0);
    }
    return;  // the producer's other 127 threads have nothing to do
  }

  hopper::claim_registers<CONSUMER_REGISTERS>();
  const int consumer = warpgroup - 1;
  const int consumer_row = consumer * CONSUMER_ROWS;  // this consumer's first row in the tile
  const bool storer = threadIdx.x % hopper::warpgroup_threads == 0;  // issues this consumer's TMA stores
  const int consumer_barrier = 1 + consumer;  // named barrier of this consumer's warpgroup (0 is __syncthreads)
  float acc[CONSUMER_ROWS / hopper::wgmma_m][BN / 2];  // each tile's first WGMMA overwrites it
  hopper::PipelineState<STAGES> read, release;  // release trails read by MMAS_IN_FLIGHT K-steps
  hopper::trace::Lane lane(hopper::trace::consumer, consumer);
  for (;;) {
    lane.mark(hopper::trace::wait_full);
    smem.pipe.consumer_wait(read);  // the next tile's first K-step, or the signal to stop
    const int index = smem.tile[read.stage];
    if (index == hopper::no_more_tiles) {
      if (storer) hopper::tma_store_wait_all();  // the last stores read shared memory and land before exit
      return;
    }
    const matmul::TileCoord tile = scheduler.tile(index);
    const int tile_row = tile.m * BM;
    const int tile_col = tile.n * BN;
    lane.next_tile(index);

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
          hopper::wgmma<T, BN>(acc[i], desc_a, desc_b, k_tile > 0 || kk > 0);
        }
      }
      hopper::wgmma_commit();
      hopper::wgmma_wait<MMAS_IN_FLIGHT>();
#pragma unroll
      for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i) hopper::fence_accumulators(acc[i]);
      if (k_tile >= MMAS_IN_FLIGHT) {
        smem.pipe.consumer_release(release);
        release.advance();
      }
      read.advance();
    }
    hopper::wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i) hopper::fence_accumulators(acc[i]);
    lane.mark(hopper::trace::store);
    // The stages still held go back before the epilogue, so the producer refills them meanwhile.
    for (int held = 0; held < MMAS_IN_FLIGHT && held < k_tiles; ++held) {
      smem.pipe.consumer_release(release);
      release.advance();
    }

    if (!tma_store) {  // C's rows are not 16-byte multiples: no tensor map, v5's direct stores
#pragma unroll
      for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i)
        hopper::store_fragment<BN>(acc[i], c, tile_row + consumer_row + i * hopper::wgmma_m, tile_col, m, n);
      continue;
    }
    // The storer role, box by box. A box is written again only once TMA has read what it held;
    // only the storer can wait for that, so it waits, then releases its warpgroup at the barrier.
    // Then every thread writes its part and fences it into the async proxy, and once all have
    // (the second barrier) the storer issues the store and goes on without waiting for it.
#pragma unroll
    for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i) {
#pragma unroll
      for (int q = 0; q < BN / C_COLS; ++q) {
        T* box = smem.c[consumer][(i * BN / C_COLS + q) % C_BOXES];
        if (storer) hopper::tma_store_wait_read<C_BOXES - 1>();
        hopper::named_barrier_sync(consumer_barrier, hopper::warpgroup_threads);
        hopper::store_fragment_swizzled<BN>(acc[i], q, box);
        hopper::fence_proxy_async();
        hopper::named_barrier_sync(consumer_barrier, hopper::warpgroup_threads);
        if (storer) {
          hopper::tma_store_2d(&c_map, box, tile_col + q * C_COLS, tile_row + consumer_row + i * hopper::wgmma_m);
          hopper::tma_store_commit();
        }
      }
    }
  }
}
// [/region:kernel]

// [region:launch]
template <typename T>
void launch(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream, hopper::TileQueue* queue) {
  matmul::validate_shape({m, n, k});
  matmul::validate_operands(a, b, c);
  const CUtensorMap a_map = hopper::make_tile_map(a, hopper::tile_map_params(m, k, BM, BK));
  const CUtensorMap b_map = hopper::make_tile_map(b, hopper::tile_map_params(n, k, BN, BK));
  // TMA needs C's row pitch to be a multiple of 16 bytes; otherwise the kernel stores directly.
  const bool tma_store = n % 8 == 0;
  const CUtensorMap c_map =
      tma_store ? hopper::make_tile_map(c, hopper::tile_map_params(m, n, hopper::wgmma_m, C_COLS)) : CUtensorMap{};
  const int64_t tiles = int64_t(matmul::ceil_div(m, BM)) * matmul::ceil_div(n, BN);
  matmul::validate_grid(tiles);
  const size_t smem_bytes = sizeof(SharedStorage<T>) + hopper::swizzle_atom_bytes;  // + room to align the start
  const int resident = hopper::prepare<matmul_kernel<T>>(THREADS, smem_bytes);  // CTAs that fit at once, per device
  const Scheduler scheduler{int(tiles), matmul::ceil_div(m, BM), matmul::ceil_div(n, BN), hopper::counter_of(queue)};
  const unsigned grid = unsigned(tiles < resident ? tiles : resident);  // no more CTAs than fit at once
  CUDA_CHECK(hopper::trace::attach(stream));
  matmul_kernel<T><<<grid, THREADS, smem_bytes, stream>>>(a_map, b_map, c_map, tma_store, c, m, n, k, scheduler);
  CUDA_CHECK(cudaGetLastError());
}
// [/region:launch]

void matmul(const __half* a, const __half* b, __half* c, int m, int n, int k, cudaStream_t stream,
            hopper::TileQueue* queue) {
  launch(a, b, c, m, n, k, stream, queue);
}

void matmul(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k, cudaStream_t stream,
            hopper::TileQueue* queue) {
  launch(a, b, c, m, n, k, stream, queue);
}

const matmul::Version version{
    "v6_tma_store",
    "epilogue through shared memory and TMA; cooperative consumers",
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
        {"C_BOXES", C_BOXES},
        {"THREADS", THREADS},
    },
};

}  // namespace v6_tma_store
