// v10_fp8, block-scaled (DeepSeek-V3's recipe): one scale per row of A per 128 of K, one per
// 128 × 128 block of B, and the accumulation promoted to fp32 registers every 128 of K.
//
// With a scale per block of K, a K-step's products cannot share one accumulator with the next
// step's: each K-step (BK = 128, four k32 WGMMAs) starts a fresh accumulator, and once its WGMMAs
// are done the consumer adds it, times the step's two scales, into the tile's sum, in fp32 on the
// CUDA cores. That is also the cure for FP8 WGMMA's short accumulator (about 14 bits): no sum in
// it spans more than 128 products. The sum of a 64 × 256 consumer tile takes 128 registers, so the
// products come 128 columns at a time (one B scale block each) into 64 more; the registers left
// no longer hold a deferred C, which goes out at once, as in v7. While one consumer promotes, the
// other's WGMMAs keep the tensor cores busy: nothing orders the two (turns, measured, cost more
// than they saved once the descriptors were uniform; docs/v10_fp8.md). The producer brings
// each K-step's scales with its tiles (bulk copies into the stage). Otherwise kernel.cu's kernel,
// without a cluster.
#include <cuda.h>

#include "common/check.h"
#include "common/hopper/cluster.cuh"
#include "common/hopper/cluster_channel.cuh"
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
#include "v10_fp8/matmul.h"

namespace v10_fp8::block_scaled {

// [region:constants]
// The tile, chosen by arithmetic and checked by measurement (this version's page in docs/).
// BK = 128 one-byte elements is one 128-byte swizzled row, the widest box row TMA's 128-byte
// swizzle allows. Each consumer computes CONSUMER_ROWS × BN of C: CONSUMER_ROWS / 64 WGMMAs per
// 32-wide K slice, each with BN/2 fp32 accumulators per thread.
using Element = __nv_fp8_e4m3;  // A and B
using Out = __nv_bfloat16;  // C
constexpr int BM = 128;
constexpr int BN = 256;
constexpr int HALF = BN / 2;  // columns whose products one accumulator holds: one B scale block
constexpr int BK = 128;
constexpr int STAGES = 4;  // stages in the ring: the consumers hold one, the producer fills the rest
constexpr int GROUP = 8;  // rows of cluster blocks per group of the grouped order (1: row by row)
constexpr int CLUSTER_M = 1;  // CTAs of a cluster along M: they share the B tile, loaded once
constexpr int CLUSTER_N = 1;  // CTAs of a cluster along N: they share the A tile, loaded once
using Scheduler = hopper::TileScheduler<GROUP, CLUSTER_M, CLUSTER_N>;  // the scheduler role, in common/hopper
constexpr int CONSUMERS = 2;
constexpr int CONSUMER_ROWS = BM / CONSUMERS;
constexpr int C_BOXES = 1;  // shared-memory boxes per consumer for the TMA store (what the scales leave)
constexpr int THREADS = hopper::warpgroup_threads * (1 + CONSUMERS);  // warpgroup 0 produces, the others consume
constexpr int CLUSTER = CLUSTER_M * CLUSTER_N;
static_assert(CLUSTER >= 1 && CLUSTER <= 8, "a portable cluster has at most 8 CTAs");
static_assert(CONSUMER_ROWS % hopper::wgmma_m == 0, "each consumer owns whole WGMMA rows");
// A box of C: one WGMMA's 64 rows, each one 128-byte swizzled row of C_COLS two-byte elements.
constexpr int C_COLS = hopper::swizzle_bytes / sizeof(Out);
static_assert(BN % C_COLS == 0, "a consumer's rows go out as whole boxes");
constexpr int BOXES = CONSUMER_ROWS / hopper::wgmma_m * (BN / C_COLS);  // boxes of C per consumer tile
// [/region:constants]

// [region:registers]
// One block per SM: 65,536 registers for 384 threads, 168 each at launch (a multiple of 8). The
// producer keeps PRODUCER_REGISTERS and the consumers take what it frees; the three must fit in
// what the launch gave, or a consumer's setmaxnreg.inc waits forever for registers.
constexpr int LAUNCH_REGISTERS = 65536 / THREADS / 8 * 8;
constexpr int PRODUCER_REGISTERS = 40;
constexpr int CONSUMER_REGISTERS = 232;
static_assert(HALF == matmul::scale_block && BK == matmul::scale_block,
              "half a tile's columns, one K-step: one scale block");
static_assert(PRODUCER_REGISTERS + CONSUMERS * CONSUMER_REGISTERS <= (1 + CONSUMERS) * LAUNCH_REGISTERS,
              "the consumers claim more registers than the producer frees");
// [/region:registers]

// [region:smem]
constexpr int UNIT_SLOTS = 2;  // units rank 0 may send before its peers have read the one before
// STAGES buffers for A and B, the pipeline's pair of barriers for each stage, and each consumer's
// boxes for the TMA store of C. A stage holds kernel.cu's 48 KB and 544 bytes of scales: 4 stages
// and one box per consumer fill 227 KB.
// Each tile starts on a 1024-byte boundary: the 128-byte swizzle pattern repeats every 8 rows
// of 128 bytes, and both TMA and the WGMMA descriptor assume the pattern starts at the tile.
struct SharedStorage {
  alignas(hopper::swizzle_atom_bytes) Element a[STAGES][BM * BK];  // BM rows of A per stage, K-major, swizzled
  alignas(hopper::swizzle_atom_bytes) Element b[STAGES][BN * BK];  // BN rows of B per stage, K-major, swizzled
  alignas(hopper::swizzle_atom_bytes) Out c[CONSUMERS][C_BOXES][hopper::wgmma_m * C_COLS];  // C boxes, swizzled
  alignas(16) float scale_a[STAGES][BM];  // the K-step's scale of each row of the A tile
  alignas(16) float scale_b[STAGES][2][4];  // per half, 16 bytes of B's scales holding the K-step's, at k_tile % 4
  hopper::Pipeline<STAGES> pipe;
  int tile[STAGES];  // the tile whose K-step each stage holds, or hopper::no_more_tiles
  hopper::ClusterChannel<UNIT_SLOTS> units;  // the dynamic queue's units, from rank 0 to its peers
};
// [/region:smem]

// [region:kernel]
__global__ void __launch_bounds__(THREADS, 1)
    matmul_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                  const __grid_constant__ CUtensorMap c_map, bool tma_store, Out* c, int m, int n, int k,
                  const float* scale_a, const float* scale_b, int scale_b_pitch, Scheduler scheduler) {
  extern __shared__ unsigned char smem_bytes[];
  auto& smem = *reinterpret_cast<SharedStorage*>(matmul::align_up(smem_bytes, hopper::swizzle_atom_bytes));
  const uint32_t rank = hopper::cluster_rank();

  // A stage is empty once every consumer thread released it: each one read the stage's label, and
  // only its own arrival orders that read before the producer writes the next label there.
  // With a cluster, the peers' consumers read the multicast operand at the same stage: each of
  // them adds one arrival, by its first thread, once its MMAs on the stage are done.
  if (threadIdx.x == 0) {
    smem.pipe.init(CONSUMERS * hopper::warpgroup_threads + CONSUMERS * (CLUSTER - 1));
    if (CLUSTER > 1) smem.units.init(CLUSTER - 1);
  }
  hopper::cluster_sync();  // the peers' barriers are initialised before anyone arrives on them

  const int k_tiles = matmul::ceil_div(k, BK);
  const int warpgroup = threadIdx.x / hopper::warpgroup_threads;
  if (warpgroup == 0) {
    hopper::release_registers<PRODUCER_REGISTERS>();
    if (threadIdx.x == 0) {
      hopper::PipelineState<STAGES> write;
      // The CTAs of a cluster row (same tile.m) share A; the first of them multicasts it to the
      // row. Likewise B down a cluster column. Every CTA's `full` expects both tiles' bytes.
      const int rank_m = int(rank) % CLUSTER_M, rank_n = int(rank) / CLUSTER_M;
      uint16_t row = 0, column = 0;  // the ranks of this CTA's cluster row and column
      for (int j = 0; j < CLUSTER_N; ++j) row |= uint16_t(1u << (j * CLUSTER_M + rank_m));
      for (int i = 0; i < CLUSTER_M; ++i) column |= uint16_t(1u << (rank_n * CLUSTER_M + i));
      // Static, or alone in its cluster, a CTA finds its next unit itself. With the queue, rank 0
      // draws it and sends it to the peers, whose producers wait for it.
      hopper::PipelineState<UNIT_SLOTS> unit_slot;
      const auto next_unit = [&](int current) {
        if (scheduler.counter == nullptr || CLUSTER == 1) return scheduler.next(current);
        return rank == 0 ? smem.units.send(unit_slot, scheduler.next(current), CLUSTER - 1)
                         : smem.units.receive(unit_slot);
      };
      hopper::trace::Lane lane(hopper::trace::producer);
      for (int index = scheduler.first(); index != hopper::no_more_tiles; index = next_unit(index)) {
        const matmul::TileCoord tile = scheduler.tile(index, rank);
        lane.next_tile(index);
        for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
          lane.mark(hopper::trace::wait_empty);
          smem.pipe.producer_wait(write);
          lane.mark(hopper::trace::load);
          smem.tile[write.stage] = index;
          // A's scales for the tile's rows inside A (m is a multiple of 4: 16-byte runs) and the 16
          // bytes of B's around the K-step's one; a cluster's tile past A's or B's last row has none.
          const int scale_rows = max(0, min(BM, m - tile.m * BM));
          const int scale_b_halves = tile.n * BN + HALF < n ? 2 : 1;  // a last tile may end in its first half
          uint64_t* full = smem.pipe.producer_expect(write, sizeof(smem.a[0]) + sizeof(smem.b[0]) + 4 * scale_rows +
                                                                scale_b_halves * sizeof(smem.scale_b[0][0]));
          if (scale_rows > 0)
            hopper::bulk_load(smem.scale_a[write.stage], scale_a + int64_t(k_tile) * m + tile.m * BM, 4 * scale_rows,
                              full);
          for (int h = 0; h < scale_b_halves; ++h)
            hopper::bulk_load(smem.scale_b[write.stage][h],
                              scale_b + int64_t(2 * tile.n + h) * scale_b_pitch + k_tile / 4 * 4,
                              sizeof(smem.scale_b[0][0]), full);
          if (CLUSTER_N == 1)
            hopper::tma_load_2d(smem.a[write.stage], &a_map, full, k_tile * BK, tile.m * BM);
          else if (rank_n == 0)
            hopper::tma_load_2d_multicast(smem.a[write.stage], &a_map, full, k_tile * BK, tile.m * BM, row);
          if (CLUSTER_M == 1)
            hopper::tma_load_2d(smem.b[write.stage], &b_map, full, k_tile * BK, tile.n * BN);
          else if (rank_m == 0)
            hopper::tma_load_2d_multicast(smem.b[write.stage], &b_map, full, k_tile * BK, tile.n * BN, column);
          write.advance();
        }
      }
      lane.mark(hopper::trace::wait_empty);
      smem.pipe.producer_wait(write);  // one more stage, with no data: the consumers' signal to stop
      smem.tile[write.stage] = hopper::no_more_tiles;
      smem.pipe.producer_expect(write, 0);
    }
    // Alone in its cluster, a CTA has no peer to wait for at exit (and synccheck rejects a
    // one-CTA barrier.cluster reached from two places, the producer's and the consumers').
    if constexpr (CLUSTER > 1) hopper::cluster_sync();  // the producer's other 127 threads have nothing to do but this
    return;
  }

  hopper::claim_registers<CONSUMER_REGISTERS>();
  const int consumer = warpgroup - 1;
  const int consumer_row = consumer * CONSUMER_ROWS;  // this consumer's first row in the tile
  const bool storer = threadIdx.x % hopper::warpgroup_threads == 0;  // issues this consumer's TMA stores
  const int consumer_barrier = 1 + consumer;  // named barrier of this consumer's warpgroup (0 is __syncthreads)
  float acc[CONSUMER_ROWS / hopper::wgmma_m][HALF / 2];  // one half's products of one K-step
  float sum[2][CONSUMER_ROWS / hopper::wgmma_m][HALF / 2];  // the tile's scaled sum, by half, in fp32
  const int warp_row = 16 * (threadIdx.x % hopper::warpgroup_threads / 32) + threadIdx.x % 32 / 4;
  // The storer role, one box of the tile's C, packed from the sum. The box of shared memory is
  // written again only once TMA has read what it held; only the storer can wait for that, so it
  // waits, then releases its warpgroup at the barrier. Then every thread writes its part and
  // fences it into the async proxy, and once all have (the second barrier) the storer issues the
  // store and goes on without waiting for it.
  const auto store_box = [&](const uint32_t(&packed)[16], int row, int col) {
    Out* staging = smem.c[consumer][0];
    if (storer) hopper::tma_store_wait_read<C_BOXES - 1>();
    hopper::named_barrier_sync(consumer_barrier, hopper::warpgroup_threads);
    hopper::store_box_swizzled(packed, staging);
    hopper::fence_proxy_async();
    hopper::named_barrier_sync(consumer_barrier, hopper::warpgroup_threads);
    if (storer) {
      hopper::tma_store_2d(&c_map, staging, col, row);
      hopper::tma_store_commit();
    }
  };
  // Hands a stage back to this CTA's producer (every thread) and to each peer's (the first thread).
  const auto release_stage = [&](hopper::PipelineState<STAGES> at) {
    smem.pipe.consumer_release(at);
    if (storer)
      for (uint32_t peer = 0; peer < CLUSTER; ++peer)
        if (peer != rank) hopper::mbarrier_arrive_cluster(&smem.pipe.empty[at.stage], peer);
  };
  hopper::PipelineState<STAGES> read;
  hopper::trace::Lane lane(hopper::trace::consumer, consumer);
  // The QGMMAs' descriptors: made once, for stage 0, and moved along in 16-byte units (the start
  // address field), all from values the warp shares: a shuffle from lane 0 tells ptxas so, and it
  // keeps them in uniform registers instead of moving four registers into them before each QGMMA.
  constexpr uint64_t desc_high = hopper::make_smem_descriptor(0) & ~uint64_t(0xFFFFFFFF);
  const uint32_t desc_a0 = __shfl_sync(0xFFFFFFFF, uint32_t(hopper::smem_descriptor(&smem.a[0][consumer_row * BK])), 0);
  const uint32_t desc_b0 = __shfl_sync(0xFFFFFFFF, uint32_t(hopper::smem_descriptor(&smem.b[0][0])), 0);
  for (;;) {
    lane.mark(hopper::trace::wait_full);
    smem.pipe.consumer_wait(read);  // the next tile's first K-step, or the signal to stop
    // Lane 0's label, for the whole warp: ptxas can then prove that the warp takes every branch of
    // this loop together, and the descriptors stay uniform without a shuffle of the stage and a
    // warp sync before each K-step's first QGMMA (2-4% faster, docs/v10_fp8.md).
    const int index = __shfl_sync(0xFFFFFFFF, smem.tile[read.stage], 0);
    if (index == hopper::no_more_tiles) {
      if (storer) hopper::tma_store_wait_all();  // the last stores read shared memory and land before exit
      if constexpr (CLUSTER > 1)
        hopper::cluster_sync();  // no peer still arrives on this CTA's barriers once it has left
      return;
    }
    // The rank is read again here rather than kept live across the loop: in the trace build the
    // consumer has no register to spare for it.
    const matmul::TileCoord tile = scheduler.tile(index, hopper::cluster_rank());
    const int tile_row = tile.m * BM;
    const int tile_col = tile.n * BN;
    lane.next_tile(index);

    // The sum starts at zero, so that every K-step runs one code path: with a separate first step
    // (sum = product) ptxas kept the sum in other registers on each path and copied 48 of them at
    // the top of every K-step.
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i)
#pragma unroll
        for (int j = 0; j < HALF / 2; ++j) sum[h][i][j] = 0.0f;
    for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
      lane.mark(hopper::trace::wait_full);
      smem.pipe.consumer_wait(read);
      lane.mark(hopper::trace::compute);
      // The K-step's scales, read before its WGMMAs so that their latency is hidden behind them
      // and not added to the promotion's. A thread's accumulators cover two rows of each WGMMA,
      // warp_row and warp_row + 8: pairs 4j, 4j+1 the first, 4j+2, 4j+3 the second.
      float top[2][CONSUMER_ROWS / hopper::wgmma_m], bottom[2][CONSUMER_ROWS / hopper::wgmma_m];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float sb = smem.scale_b[read.stage][h][k_tile % 4];
#pragma unroll
        for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i) {
          const int row = consumer_row + i * hopper::wgmma_m + warp_row;
          top[h][i] = smem.scale_a[read.stage][row] * sb;
          bottom[h][i] = smem.scale_a[read.stage][row + 8] * sb;
        }
      }
      const uint32_t desc_a = desc_a0 + uint32_t(read.stage) * uint32_t(sizeof(smem.a[0]) / 16);
      const uint32_t desc_b = desc_b0 + uint32_t(read.stage) * uint32_t(sizeof(smem.b[0]) / 16);
#pragma unroll
      for (int h = 0; h < 2; ++h) {  // the tile's two halves of columns, one B scale block each
        hopper::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK / hopper::wgmma_k_fp8; ++kk) {  // one K-step, one scale block of K
#pragma unroll
          for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i) {
            // Moving along K inside a swizzled row: 32 elements = 32 bytes further; the hardware
            // applies the swizzle to the address it computes.
            hopper::wgmma<Element, HALF>(
                acc[i], desc_high | (desc_a + (i * hopper::wgmma_m * BK + kk * hopper::wgmma_k_fp8) / 16),
                desc_high | (desc_b + (h * HALF * BK + kk * hopper::wgmma_k_fp8) / 16), kk > 0);
          }
        }
        hopper::wgmma_commit();
        hopper::wgmma_wait<0>();  // the promotion reads these products: the other consumer's WGMMAs run meanwhile
        // Promotion: sum += acc · scale_a(row) · scale_b. Before it, after the second half, the stage
        // goes back to the producer: its tiles are read and its scales are in registers.
        if (h == 1) release_stage(read);
#pragma unroll
        for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i) {
          hopper::fence_accumulators(acc[i]);
#pragma unroll
          for (int j = 0; j < HALF / 2; ++j)
            sum[h][i][j] = fmaf(acc[i][j], j % 4 < 2 ? top[h][i] : bottom[h][i], sum[h][i][j]);
        }
      }
      read.advance();
    }
    lane.mark(hopper::trace::store);

    if (!tma_store) {  // C's rows are not 16-byte multiples: no tensor map, v5's direct stores
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i)
          hopper::store_fragment<HALF>(sum[h][i], c, tile_row + consumer_row + i * hopper::wgmma_m, tile_col + h * HALF,
                                       m, n);
      continue;
    }
    // The tile's C, box by box: each box 64 columns, a quarter of the sum's registers.
#pragma unroll
    for (int box = 0; box < BOXES; ++box) {
      const int i = box / (BN / C_COLS), q = box % (BN / C_COLS), h = q / (HALF / C_COLS);
      const int first = q % (HALF / C_COLS) * C_COLS / 2;  // the box's first accumulator in sum[h][i]
      uint32_t packed[16];
#pragma unroll
      for (int j = 0; j < 16; ++j)
        packed[j] = hopper::pack_pair<Out>(sum[h][i][first + 2 * j], sum[h][i][first + 2 * j + 1]);
      store_box(packed, tile_row + consumer_row + i * hopper::wgmma_m, tile_col + q * C_COLS);
    }
  }
}
// [/region:kernel]

// [region:launch]
void matmul(const Element* a, const Element* b, Out* c, int m, int n, int k, const float* scale_a, const float* scale_b,
            cudaStream_t stream, hopper::TileQueue* queue) {
  matmul::validate_fp8_shape({m, n, k});
  matmul::validate_operands(a, b, c);
  matmul::validate_scales(scale_a, scale_b);
  matmul::validate_block_scales({m, n, k}, scale_a, scale_b);
  const CUtensorMap a_map = hopper::make_tile_map(a, hopper::tile_map_params(m, k, BM, BK, sizeof(Element)));
  const CUtensorMap b_map = hopper::make_tile_map(b, hopper::tile_map_params(n, k, BN, BK, sizeof(Element)));
  // TMA needs C's row pitch to be a multiple of 16 bytes; otherwise the kernel stores directly.
  const bool tma_store = n % 8 == 0;
  const CUtensorMap c_map =
      tma_store ? hopper::make_tile_map(c, hopper::tile_map_params(m, n, hopper::wgmma_m, C_COLS)) : CUtensorMap{};
  const int blocks_m = matmul::ceil_div(matmul::ceil_div(m, BM), CLUSTER_M);
  const int blocks_n = matmul::ceil_div(matmul::ceil_div(n, BN), CLUSTER_N);
  const int64_t units = int64_t(blocks_m) * blocks_n;
  matmul::validate_grid(units * CLUSTER);
  const size_t smem_bytes = sizeof(SharedStorage) + hopper::swizzle_atom_bytes;  // + room to align the start
  // How many clusters fit on this GPU at once, which depends on how its SMs group into the clusters'
  // neighbourhoods (GPCs), not only on how many CTAs fit per SM.
  const int resident_clusters = hopper::prepare<matmul_kernel>(THREADS, smem_bytes, CLUSTER);
  const Scheduler scheduler{int(units), blocks_m, blocks_n, hopper::counter_of(queue)};
  const int clusters = int(units < resident_clusters ? units : resident_clusters);  // no more than fit at once
  CUDA_CHECK(hopper::trace::attach(stream));
  hopper::launch_cluster(matmul_kernel, clusters, CLUSTER, THREADS, smem_bytes, stream, a_map, b_map, c_map, tma_store,
                         c, m, n, k, scale_a, scale_b, int(matmul::scale_b_pitch(k)), scheduler);
}
// [/region:launch]

}  // namespace v10_fp8::block_scaled
