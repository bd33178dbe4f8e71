// v9_stream_k: the work is balanced, not the tiles; and a small M is not padded to 128 rows.
//
// v8 gives each cluster whole tiles. When the tiles do not fill the last wave (8192³: 15.5 waves)
// or are fewer than the SMs (a model's linear layer at 16 tokens: 16 tiles for 132 SMs), SMs sit
// idle. Here the scheduler is stream-K (common/hopper/stream_k.cuh): a last wave's tiles are cut
// into K-steps and every cluster takes the same number of steps; a tile computed by several
// clusters is summed in a fixed order from the fp32 partials in the caller's TileQueue. The tile
// is one of a menu, which choose() (choose.h) picks from the shape: for M ≤ 128 the kernel
// computes Cᵀ = B·Aᵀ, so N fills the tile's 128 (narrow: 64) rows and M only its 16 to 128 columns;
// stmatrix.trans turns the tile back into C in shared memory, and TMA stores it.
// Everything else (the clusters, the multicast loads, the deferred store) is v8's.
#include <cuda.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/check.h"
#include "common/hopper/cluster.cuh"
#include "common/hopper/fragment.cuh"
#include "common/hopper/launch.h"
#include "common/hopper/named_barrier.cuh"
#include "common/hopper/pipeline.cuh"
#include "common/hopper/registers.cuh"
#include "common/hopper/stream_k.cuh"
#include "common/hopper/tensor_map.h"
#include "common/hopper/tma.cuh"
#include "common/hopper/trace.cuh"
#include "common/hopper/wgmma.cuh"
#include "common/problem.h"
#include "common/tiles.h"
#include "v9_stream_k/choose.h"
#include "v9_stream_k/matmul.h"

namespace v9_stream_k {

// [region:constants]
// The kernel computes D = P·Qᵀ in tiles of BM × BN: P = A and Q = B (D is C), or, with a swapped
// tiling, P = B and Q = A (D is Cᵀ). BK and the roles are v8's; BM, BN, the consumers and the
// stages are the tiling's (the menu in choose.h). BK = 64 two-byte elements is one 128-byte
// swizzled row.
constexpr int BK = 64;
constexpr int MMAS_IN_FLIGHT = 1;  // K-steps whose WGMMAs may still run when the next ones issue
constexpr int GROUP = 8;  // rows of cluster blocks per group of the grouped order (1: row by row)
// CTAs of a cluster along M (the tiling's CLUSTER_M, 2 or 1) share the Q tile, loaded once.
constexpr int CLUSTER_N = 1;  // CTAs of a cluster along N: they share the P tile, loaded once
template <typename Tiling>  // the scheduler role, in common/hopper
using Scheduler = hopper::StreamKScheduler<GROUP, Tiling::CLUSTER_M, CLUSTER_N>;
constexpr int MIN_SHARE = 4;  // K-steps a share should have, below which a grid of fewer clusters takes them
constexpr int MAX_PIECES = 4;  // with fewer units than clusters, the pieces each unit is split into (split-K)
constexpr int C_BOXES = 2;  // shared-memory boxes per consumer for the TMA store: fill one while one drains
template <typename Tiling>  // warpgroup 0 produces, the others consume
constexpr int THREADS = hopper::warpgroup_threads * (1 + Tiling::CONSUMERS);
// A box of C: one WGMMA's 64 rows of C_COLS two-byte elements, a row one span of 128-byte swizzle,
// or of 64-byte swizzle where the tile's BN is not a multiple of 64 (wide224, wide160). A swapped tiling's
// box is its BN rows of C by its consumer's 64 rows of D.
template <typename Tiling>
constexpr int C_COLS = Tiling::SWAP || Tiling::BN % 64 == 0 ? hopper::swizzle_bytes / 2 : hopper::swizzle_bytes / 4;
// [/region:constants]

// A swapped tile of at most 64 columns streams P (W): one CTA reads each byte once. Its tensor map asks
// for no L2 promotion and its loads for early eviction (both measured, docs/v9_stream_k.md).
template <typename Tiling>
constexpr bool STREAMS_P = Tiling::SWAP && Tiling::BN <= 64;

// [region:registers]
// One block per SM: 65,536 registers, 168 each at launch for 384 threads (a multiple of 8), 255 (a
// thread's most) for a narrow tiling's 256. The producer keeps PRODUCER_REGISTERS and the consumers
// take what it frees; all must fit in what the launch gave, or a consumer's setmaxnreg.inc waits
// forever for registers.
template <typename Tiling>
constexpr int LAUNCH_REGISTERS = std::min(65536 / THREADS<Tiling> / 8 * 8, 255);
constexpr int PRODUCER_REGISTERS = 40;
constexpr int CONSUMER_REGISTERS = 232;
// [/region:registers]

// [region:smem]
// STAGES buffers for P and Q, the pipeline's pair of barriers for each stage, and each consumer's
// boxes for the TMA store of C (a swapped tiling stores directly and has none).
// Each tile starts on a 1024-byte boundary: the 128-byte swizzle pattern repeats every 8 rows
// of 128 bytes, and both TMA and the WGMMA descriptor assume the pattern starts at the tile.
// The schedule is static, so the stages carry no tile label: every role walks it on its own.
template <typename T, typename Tiling>
struct SharedStorage {
  alignas(hopper::swizzle_atom_bytes) T a[Tiling::STAGES][Tiling::BM * BK];  // BM rows of P a stage, K-major, swizzled
  alignas(hopper::swizzle_atom_bytes) T b[Tiling::STAGES][Tiling::BN * BK];  // BN rows of Q per stage
  // C boxes, swizzled. A swapped tiling's whole C tile is one box per consumer: BN rows of C (of
  // its M) by the consumer's 64 rows of D (of C's N).
  alignas(hopper::swizzle_atom_bytes) T
      c[Tiling::CONSUMERS][Tiling::SWAP ? 1 : C_BOXES][(Tiling::SWAP ? Tiling::BN : hopper::wgmma_m) * C_COLS<Tiling>];
  hopper::Pipeline<Tiling::STAGES> pipe;
};
// [/region:smem]

// [region:kernel]
template <typename T, typename Tiling>
__global__ void __launch_bounds__(THREADS<Tiling>, 1)
    matmul_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                  const __grid_constant__ CUtensorMap c_map, bool tma_store, T* c, int m, int n,
                  Scheduler<Tiling> scheduler, float* partials, int* flags) {
  // m × n is D's shape: C's, or with a swapped tiling, Cᵀ's (n × m of C).
  constexpr int BM = Tiling::BM, BN = Tiling::BN, STAGES = Tiling::STAGES, CLUSTER_M = Tiling::CLUSTER_M;
  constexpr int CLUSTER = CLUSTER_M * CLUSTER_N;
  constexpr int CONSUMERS = Tiling::CONSUMERS, CONSUMER_ROWS = BM / CONSUMERS;
  static_assert(CONSUMER_ROWS % hopper::wgmma_m == 0, "each consumer owns whole WGMMA rows");
  static_assert(CONSUMERS <= hopper::TileQueue::flags_per_slot, "a flag per consumer in each slot");
  static_assert(PRODUCER_REGISTERS + CONSUMERS * CONSUMER_REGISTERS <= (1 + CONSUMERS) * LAUNCH_REGISTERS<Tiling>,
                "the consumers claim more registers than the producer frees");
  static_assert(CLUSTER >= 1 && CLUSTER <= 8, "a portable cluster has at most 8 CTAs");
  static_assert(!STREAMS_P<Tiling> || CLUSTER_N == 1, "a streamed P is loaded by each CTA, not multicast");
  static_assert(STAGES > MMAS_IN_FLIGHT, "the stage being computed and those in flight are all held");
  static_assert(BM * BN <= hopper::TileQueue::partial_floats, "a partial tile fits a slot of the queue");
  constexpr int C_COLS = v9_stream_k::C_COLS<Tiling>;
  static_assert(Tiling::SWAP || BN % C_COLS == 0, "a consumer's rows go out as whole boxes");
  static_assert(!Tiling::SWAP || (CONSUMER_ROWS == hopper::wgmma_m && C_COLS == hopper::wgmma_m),
                "a swapped tiling's consumer holds one WGMMA's rows, the 64 columns of its C box");
  constexpr int ROW_BOXES = Tiling::SWAP ? 1 : BN / C_COLS;  // boxes across a consumer's rows of C
  constexpr int BOXES = Tiling::SWAP ? 0 : CONSUMER_ROWS / hopper::wgmma_m * ROW_BOXES;  // per consumer tile
  extern __shared__ unsigned char smem_bytes[];
  auto& smem =
      *reinterpret_cast<SharedStorage<T, Tiling>*>(matmul::align_up(smem_bytes, hopper::swizzle_atom_bytes));
  const uint32_t rank = hopper::cluster_rank();

  // A stage is empty once every consumer thread released it. With a cluster, the peers'
  // consumers read the multicast operand at the same stage: each of them adds one arrival, by its
  // first thread, once its MMAs on the stage are done.
  if (threadIdx.x == 0) {
    hopper::prefetch_tensormap(&a_map);  // fetched while the barriers are set up
    hopper::prefetch_tensormap(&b_map);
    smem.pipe.init(CONSUMERS * hopper::warpgroup_threads + CONSUMERS * (CLUSTER - 1));
  }
  // The peers' barriers are initialised before anyone arrives on them; a cluster of one is a plain
  // launch, whose CTA needs only its own threads to see its barriers initialised.
  if constexpr (CLUSTER > 1)
    hopper::cluster_sync();
  else
    __syncthreads();

  const int warpgroup = threadIdx.x / hopper::warpgroup_threads;
  if (warpgroup == 0) {
    hopper::release_registers<PRODUCER_REGISTERS>();
    if (threadIdx.x == 0) {
      hopper::PipelineState<STAGES> write;
      // The CTAs of a cluster row (same tile.m) share P; the first of them multicasts it to the
      // row. Likewise Q down a cluster column. Every CTA's `full` expects both tiles' bytes.
      const int rank_m = int(rank) % CLUSTER_M, rank_n = int(rank) / CLUSTER_M;
      uint16_t row = 0, column = 0;  // the ranks of this CTA's cluster row and column
      for (int j = 0; j < CLUSTER_N; ++j) row |= uint16_t(1u << (j * CLUSTER_M + rank_m));
      for (int i = 0; i < CLUSTER_M; ++i) column |= uint16_t(1u << (rank_n * CLUSTER_M + i));
      const uint64_t stream_policy = hopper::l2_evict_first();  // for P's lines, where STREAMS_P
      hopper::trace::Lane lane(hopper::trace::producer);
      const int cluster = scheduler.cluster_index();
      for (hopper::Work w = scheduler.first(cluster); w.unit != hopper::no_more_tiles; w = scheduler.next(w, cluster)) {
        const matmul::TileCoord tile = scheduler.tile(w.unit, rank);
        lane.next_tile(w.unit);
        for (int k_tile = w.k_begin; k_tile < w.k_end; ++k_tile) {
          lane.mark(hopper::trace::wait_empty);
          smem.pipe.producer_wait(write);
          lane.mark(hopper::trace::load);
          uint64_t* full = smem.pipe.producer_expect(write, sizeof(smem.a[0]) + sizeof(smem.b[0]));
          if (STREAMS_P<Tiling>)
            hopper::tma_load_2d(smem.a[write.stage], &a_map, full, k_tile * BK, tile.m * BM, stream_policy);
          else if (CLUSTER_N == 1)
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
    }
    if constexpr (CLUSTER > 1) hopper::cluster_sync();  // the producer's other 127 threads have nothing else to do
    return;
  }

  hopper::claim_registers<CONSUMER_REGISTERS>();
  const int consumer = warpgroup - 1;
  const int consumer_row = consumer * CONSUMER_ROWS;  // this consumer's first row in the tile
  const int thread = threadIdx.x % hopper::warpgroup_threads;
  const bool storer = thread == 0;  // issues this consumer's TMA stores, raises and waits for its flags
  const int consumer_barrier = 1 + consumer;  // named barrier of this consumer's warpgroup (0 is __syncthreads)
  float acc[CONSUMER_ROWS / hopper::wgmma_m][BN / 2];  // each piece's (Work's) first WGMMA overwrites it
  // The previous tile's C, rounded to T and packed in pairs (pack_pair), waits here to be stored
  // box by box, one per K-step of this tile, while that K-step's WGMMAs run on the tensor cores.
  uint32_t out[CONSUMER_ROWS / hopper::wgmma_m][BN / 4];
  int out_row = 0, out_col = 0;  // out's top-left element in C
  int stored = BOXES;  // boxes of out already stored; BOXES: nothing waits
  // The storer role, one box. A box of shared memory is written again only once TMA has read what
  // it held; only the storer can wait for that, so it waits, then releases its warpgroup at the
  // barrier. Then every thread writes its part and fences it into the async proxy, and once all
  // have (the second barrier) the storer issues the store and goes on without waiting for it.
  const auto store_next_box = [&] {
#pragma unroll
    for (int box = 0; box < BOXES; ++box) {  // registers are named at compile time: unrolled, one taken
      if (box != stored) continue;
      const int i = box / ROW_BOXES, q = box % ROW_BOXES;
      T* staging = smem.c[consumer][box % C_BOXES];
      if (storer) hopper::tma_store_wait_read<C_BOXES - 1>();
      hopper::named_barrier_sync(consumer_barrier, hopper::warpgroup_threads);
      hopper::store_box_swizzled<C_COLS>(&out[i][C_COLS / 4 * q], staging);
      hopper::fence_proxy_async();
      hopper::named_barrier_sync(consumer_barrier, hopper::warpgroup_threads);
      if (storer) {
        hopper::tma_store_2d(&c_map, staging, out_col + q * C_COLS, out_row + i * hopper::wgmma_m);
        hopper::tma_store_commit();
      }
    }
    ++stored;
  };
  // Hands a stage back to this CTA's producer (every thread) and to each peer's (the first thread).
  const auto release_stage = [&](hopper::PipelineState<STAGES> at) {
    smem.pipe.consumer_release(at);
    if (storer)
      for (uint32_t peer = 0; peer < CLUSTER; ++peer)
        if (peer != rank) hopper::mbarrier_arrive_cluster(&smem.pipe.empty[at.stage], peer);
  };
  // This consumer's part of CTA `cta`'s slot: register r of thread t at r · 128 + t, so every
  // access of the warpgroup to one register is 512 contiguous bytes.
  const auto slot = [&](int cta) {
    return partials + size_t(cta) * hopper::TileQueue::partial_floats + consumer * (CONSUMER_ROWS * BN) + thread;
  };
  hopper::PipelineState<STAGES> read, release;  // release trails read by MMAS_IN_FLIGHT K-steps
  hopper::trace::Lane lane(hopper::trace::consumer, consumer);
  const int cluster = scheduler.cluster_index();
  for (hopper::Work w = scheduler.first(cluster); w.unit != hopper::no_more_tiles; w = scheduler.next(w, cluster)) {
    const matmul::TileCoord tile = scheduler.tile(w.unit, rank);
    const int tile_row = tile.m * BM;
    const int tile_col = tile.n * BN;
    lane.next_tile(w.unit);

    for (int k_tile = w.k_begin; k_tile < w.k_end; ++k_tile) {
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
          hopper::wgmma<T, BN>(acc[i], desc_a, desc_b, k_tile > w.k_begin || kk > 0);
        }
      }
      hopper::wgmma_commit();
      hopper::wgmma_wait<MMAS_IN_FLIGHT>();
#pragma unroll
      for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i) hopper::fence_accumulators(acc[i]);
      if (k_tile - w.k_begin >= MMAS_IN_FLIGHT) {
        release_stage(release);
        release.advance();
      }
      read.advance();
      if (stored < BOXES) store_next_box();  // this K-step's WGMMAs run meanwhile
    }
    hopper::wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i) hopper::fence_accumulators(acc[i]);
    lane.mark(hopper::trace::store);
    // The stages still held go back before the epilogue, so the producer refills them meanwhile.
    for (int held = 0; held < MMAS_IN_FLIGHT && held < w.k_end - w.k_begin; ++held) {
      release_stage(release);
      release.advance();
    }

    // [region:fixup]
    if (w.k_end < scheduler.k_steps) {  // a contributor: the partial tile to this CTA's slot, then its flag
      float* mine = slot(blockIdx.x);
#pragma unroll
      for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i)
#pragma unroll
        for (int j = 0; j < BN / 2; ++j) __stcg(mine + (i * (BN / 2) + j) * hopper::warpgroup_threads, acc[i][j]);
      hopper::named_barrier_sync(consumer_barrier, hopper::warpgroup_threads);  // all of it written
      if (storer) hopper::raise_flag(&flags[blockIdx.x * hopper::TileQueue::flags_per_slot + consumer]);
      continue;
    }
    if (w.k_begin > 0) {  // the finisher: the contributors' partials, from the nearest cluster down
      for (int from = scheduler.next_contributor(w.unit, cluster); from >= 0;
           from = scheduler.next_contributor(w.unit, from)) {
        const int cta = from * CLUSTER + int(rank);
        int* flag = &flags[cta * hopper::TileQueue::flags_per_slot + consumer];
        if (storer) {
          hopper::wait_flag(flag);
          *flag = 0;  // lowered for the next launch: nobody writes this slot again in this one
        }
        hopper::named_barrier_sync(consumer_barrier, hopper::warpgroup_threads);
        const float* theirs = slot(cta);
#pragma unroll
        for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i)
#pragma unroll
          for (int j = 0; j < BN / 2; ++j) acc[i][j] += __ldcg(theirs + (i * (BN / 2) + j) * hopper::warpgroup_threads);
      }
    }
    // [/region:fixup]

    if (Tiling::SWAP && tma_store) {  // D is Cᵀ: transposed into the box (stmatrix.trans), then one TMA store
      T* box = smem.c[consumer][0];
      if (storer) hopper::tma_store_wait_read<0>();  // the previous tile's box has been read
      hopper::named_barrier_sync(consumer_barrier, hopper::warpgroup_threads);
      hopper::store_fragment_transposed_swizzled<BN>(acc[0], box);
      hopper::fence_proxy_async();
      hopper::named_barrier_sync(consumer_barrier, hopper::warpgroup_threads);
      if (storer) {
        hopper::tma_store_2d(&c_map, box, tile_row + consumer_row, tile_col);
        hopper::tma_store_commit();
      }
    } else if (Tiling::SWAP) {  // C's rows are not 16-byte multiples: each element to its place in C
      hopper::store_fragment_transposed<BN>(acc[0], c, tile_row + consumer_row, tile_col, m, n);
    } else if (!tma_store) {  // C's rows are not 16-byte multiples: no tensor map, v5's direct stores
#pragma unroll
      for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i)
        hopper::store_fragment<BN>(acc[i], c, tile_row + consumer_row + i * hopper::wgmma_m, tile_col, m, n);
    } else {
      // The tile's C waits in out for the next piece's K-steps; boxes the previous piece's K-steps
      // did not cover (a piece, or K, shorter than BOXES steps) go out now.
      while (stored < BOXES) store_next_box();
#pragma unroll
      for (int i = 0; i < CONSUMER_ROWS / hopper::wgmma_m; ++i)
#pragma unroll
        for (int j = 0; j < BN / 4; ++j) out[i][j] = hopper::pack_pair<T>(acc[i][2 * j], acc[i][2 * j + 1]);
      out_row = tile_row + consumer_row;
      out_col = tile_col;
      stored = 0;
    }
  }
  while (stored < BOXES) store_next_box();  // the last tile's C: no MMAs left to hide behind
  if (storer) hopper::tma_store_wait_all();  // the last stores read shared memory and land before exit
  if constexpr (CLUSTER > 1) hopper::cluster_sync();  // no peer still arrives on this CTA's barriers once it has left
}
// [/region:kernel]

// [region:launch]
template <typename Tiling, typename T>
void launch(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream, hopper::TileQueue* queue) {
  constexpr int BM = Tiling::BM, BN = Tiling::BN, CLUSTER_M = Tiling::CLUSTER_M, CLUSTER = CLUSTER_M * CLUSTER_N;
  // D = P·Qᵀ, D rows × cols: C itself, or Cᵀ with A and B swapped.
  const T* p = Tiling::SWAP ? b : a;
  const T* q = Tiling::SWAP ? a : b;
  const int rows = Tiling::SWAP ? n : m, cols = Tiling::SWAP ? m : n;
  // Where P streams, L2 promotion's early fetch of the next K-step slowed the stream. Both maps go
  // without it, as measured (docs/v9_stream_k.md).
  hopper::TileMapParams p_params = hopper::tile_map_params(rows, k, BM, BK);
  hopper::TileMapParams q_params = hopper::tile_map_params(cols, k, BN, BK);
  p_params.promote_l2 = q_params.promote_l2 = !STREAMS_P<Tiling>;
  const CUtensorMap a_map = hopper::make_tile_map(p, p_params);
  const CUtensorMap b_map = hopper::make_tile_map(q, q_params);
  // TMA needs C's row pitch to be a multiple of 16 bytes; otherwise the kernel stores directly.
  const bool tma_store = n % 8 == 0;
  // A box of C: one WGMMA's 64 rows by C_COLS, or with a swapped tiling BN rows (of M) by C_COLS.
  const int box_rows = Tiling::SWAP ? BN : hopper::wgmma_m;
  const CUtensorMap c_map =
      tma_store ? hopper::make_tile_map(c, hopper::tile_map_params(m, n, box_rows, C_COLS<Tiling>)) : CUtensorMap{};
  const int blocks_m = matmul::ceil_div(matmul::ceil_div(rows, BM), CLUSTER_M);
  const int blocks_n = matmul::ceil_div(matmul::ceil_div(cols, BN), CLUSTER_N);
  matmul::validate_grid(int64_t(blocks_m) * blocks_n * CLUSTER);
  const size_t smem_bytes = sizeof(SharedStorage<T, Tiling>) + hopper::swizzle_atom_bytes;  // + room to align
  // How many clusters fit on this GPU at once, which depends on how its SMs group into the clusters'
  // neighbourhoods (GPCs), not only on how many CTAs fit per SM.
  const int resident = hopper::prepare<matmul_kernel<T, Tiling>>(THREADS<Tiling>, smem_bytes, CLUSTER);
  const Scheduler<Tiling> scheduler =
      Scheduler<Tiling>::plan(blocks_m, blocks_n, matmul::ceil_div(k, BK), resident, queue != nullptr, MIN_SHARE, MAX_PIECES);
  float* partials = queue ? queue->partials() : nullptr;
  int* flags = queue ? queue->flags() : nullptr;
  if (queue && scheduler.clusters * CLUSTER > queue->slots())
    throw std::invalid_argument("v9_stream_k: " + std::to_string(scheduler.clusters * CLUSTER) + " CTAs but the queue has " +
                                std::to_string(queue->slots()) + " slots");
  CUDA_CHECK(hopper::trace::attach(stream));
  hopper::launch_cluster(matmul_kernel<T, Tiling>, scheduler.clusters, CLUSTER, THREADS<Tiling>, smem_bytes, stream, a_map,
                         b_map, c_map, tma_store, c, rows, cols, scheduler, partials, flags);
}

template <typename T>
void dispatch(Tile tile, const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream,
              hopper::TileQueue* queue) {
  matmul::validate_shape({m, n, k});
  matmul::validate_operands(a, b, c);
  switch (tile) {
    case Tile::wide:
      return launch<Wide>(a, b, c, m, n, k, stream, queue);
    case Tile::wide192:
      return launch<Wide192>(a, b, c, m, n, k, stream, queue);
    case Tile::wide224:
      return launch<Wide224>(a, b, c, m, n, k, stream, queue);
    case Tile::wide160:
      return launch<Wide160>(a, b, c, m, n, k, stream, queue);
    case Tile::square:
      return launch<Square>(a, b, c, m, n, k, stream, queue);
    case Tile::swap128:
      return launch<Swap128>(a, b, c, m, n, k, stream, queue);
    case Tile::swap64:
      return launch<Swap64>(a, b, c, m, n, k, stream, queue);
    case Tile::swap16:
      return launch<Swap16>(a, b, c, m, n, k, stream, queue);
    case Tile::narrow128:
      return launch<Narrow128>(a, b, c, m, n, k, stream, queue);
    case Tile::narrow64:
      return launch<Narrow64>(a, b, c, m, n, k, stream, queue);
    case Tile::narrow16:
      return launch<Narrow16>(a, b, c, m, n, k, stream, queue);
  }
  throw std::invalid_argument("v9_stream_k: tile " + std::to_string(int(tile)) + " is not one of the menu's");
}
// [/region:launch]

void matmul(const __half* a, const __half* b, __half* c, int m, int n, int k, cudaStream_t stream,
            hopper::TileQueue* queue) {
  dispatch(choose(m, n, k), a, b, c, m, n, k, stream, queue);
}

void matmul(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k, cudaStream_t stream,
            hopper::TileQueue* queue) {
  dispatch(choose(m, n, k), a, b, c, m, n, k, stream, queue);
}

void matmul(Tile tile, const __half* a, const __half* b, __half* c, int m, int n, int k, cudaStream_t stream,
            hopper::TileQueue* queue) {
  dispatch(tile, a, b, c, m, n, k, stream, queue);
}

void matmul(Tile tile, const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k,
            cudaStream_t stream, hopper::TileQueue* queue) {
  dispatch(tile, a, b, c, m, n, k, stream, queue);
}

const matmul::Version version{
    "v9_stream_k",
    "stream-K: the last waves split by K-steps, fixed-order fix-up; swapped tiles for small M; a chooser",
    matmul,
    matmul,
    {
        {"BK", BK},
        {"MMAS_IN_FLIGHT", MMAS_IN_FLIGHT},
        {"GROUP", GROUP},
        {"CLUSTER_N", CLUSTER_N},
        {"C_BOXES", C_BOXES},
        {"MIN_SHARE", MIN_SHARE},
        {"MAX_PIECES", MAX_PIECES},
    },
};

}  // namespace v9_stream_k
