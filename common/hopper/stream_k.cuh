// The scheduler role of v9: stream-K. The work is not a list of tiles but a list of K-steps, a
// unit's k_steps of them one after another, and each cluster takes an equal share of the steps.
#pragma once
#include <cstdint>

#include "common/hopper/cluster.cuh"
#include "common/hopper/mbarrier.cuh"
#include "common/hopper/tile_scheduler.cuh"
#include "common/tiles.h"

namespace hopper {

// K-steps [k_begin, k_end) of unit `unit`, or unit == no_more_tiles. Three kinds:
//   - whole:       k_begin == 0 and k_end == k_steps: the cluster computes the tile and stores C;
//   - contributor: k_end < k_steps: it writes its fp32 partial tile to its slot and raises the flag;
//   - finisher:    k_begin > 0, k_end == k_steps: it waits for the contributors' flags, adds
//                  their partials, nearest cluster first, and stores C.
struct Work {
  int unit;
  int k_begin, k_end;
};

// [region:stream_k]
// Units are CLUSTER_M x CLUSTER_N blocks of tiles in grouped order, as in TileScheduler. Units
// [0, whole_units) go out whole on the static stride, the order that keeps neighbouring tiles in
// L2 together. The units after them, a last wave that would leave clusters idle, are cut into their
// K-steps, and cluster c takes steps [begin(c), begin(c + 1)) of them: each cluster does the same
// number of steps, so none waits idle on a last, half-empty wave.
// A cluster's share starts where the previous one's ends, often inside a unit. A cluster walks its
// share backwards, a unit at a time: first the piece at its end (a unit's first K-steps: a
// contributor), last the piece at its start (a unit's last K-steps: that unit's finisher). So a
// finisher waits only on clusters of lower index, which started before it and contributed first:
// the grid needs no more than its CTAs starting in index order, not all of them on the GPU at
// once (CUTLASS's stream-K walks backwards too). Each cluster contributes at most once, so the
// slot of CTA blockIdx.x holds its only partial tile. The finisher adds the partials in the same
// order every time: reruns are bit-identical.
template <int GROUP, int CLUSTER_M = 1, int CLUSTER_N = 1>
struct StreamKScheduler {
  int blocks_m, blocks_n;  // cluster blocks along M and N
  int k_steps;  // K-steps of one unit
  int whole_units;  // a multiple of `clusters` when units are split
  int split_units;  // the units after those, split by K over all clusters
  int clusters;  // the grid's clusters

  // The schedule of the blocks' units on at most `resident` clusters. Without `split`, v8's
  // static stride over whole units. With it, whole units for the full waves, and the units of a
  // last wave that would leave more than a fifth of the clusters idle split over all of them. When
  // that last wave is the only one (fewer units than clusters), split-K instead: each unit in the
  // same number of pieces, at most max_pieces and at least min_share steps each, one cluster per
  // piece; shares then start on unit boundaries, so no cluster has two pieces, and a finisher waits
  // for at most max_pieces - 1 partials. A last wave that is nearly full stays whole: splitting it
  // would cost its fix-ups and, worse, L2 reuse, since split units run at different K at the same
  // time.
  static StreamKScheduler plan(int blocks_m, int blocks_n, int k_steps, int resident, bool split, int min_share,
                               int max_pieces) {
    const int units = blocks_m * blocks_n;
    const int last_wave = units % resident;  // units of the last wave, 0 when it is full
    const StreamKScheduler whole{blocks_m, blocks_n, k_steps, units, 0, units < resident ? units : resident};
    if (!split || !matmul::splits_last_wave(units, resident)) return whole;
    if (units < resident) {
      int pieces = resident / units;
      if (pieces > max_pieces) pieces = max_pieces;
      if (pieces > k_steps / min_share) pieces = k_steps / min_share;
      if (pieces <= 1) return whole;  // splitting gains nothing
      return {blocks_m, blocks_n, k_steps, 0, units, units * pieces};
    }
    return {blocks_m, blocks_n, k_steps, units - last_wave, last_wave, resident};
  }

  // Cluster c's first work, and the work after w.
  __host__ __device__ Work first(int c) const { return whole_units > 0 ? Work{c, 0, k_steps} : split(begin(c + 1), c); }

  __host__ __device__ Work next(Work w, int c) const {
    if (w.unit < whole_units) {
      const int unit = w.unit + clusters;
      return unit < whole_units ? Work{unit, 0, k_steps} : split(begin(c + 1), c);
    }
    return split(int64_t(w.unit - whole_units) * k_steps + w.k_begin, c);
  }

  // The tile of unit `unit` that CTA `rank` of the cluster computes: TileScheduler's placement.
  __device__ matmul::TileCoord tile(int unit, uint32_t rank = 0) const {
    return TileScheduler<GROUP, CLUSTER_M, CLUSTER_N>{0, blocks_m, blocks_n, nullptr}.tile(unit, rank);
  }

  // For a finisher of `unit`: the next cluster below `c` that contributed to it, or -1. Down from
  // the finisher's own cluster, these are the clusters whose share ends inside the unit, skipping
  // the empty shares there are when the split steps are fewer than the clusters.
  __host__ __device__ int next_contributor(int unit, int c) const {
    const int64_t unit_begin = int64_t(unit - whole_units) * k_steps;
    for (int d = c - 1; d >= 0 && begin(d + 1) > unit_begin; --d)
      if (begin(d + 1) > begin(d)) return d;
    return -1;
  }

  // This CTA's cluster: its block index, without clusters.
  __device__ static int cluster_index() {
    if constexpr (CLUSTER_M * CLUSTER_N == 1) return int(blockIdx.x);
    return cluster_id();
  }

 private:
  // The first split step of cluster c's share; begin(clusters) is the end of the last share.
  __host__ __device__ int64_t begin(int c) const { return int64_t(split_units) * k_steps * c / clusters; }

  // Cluster c's work that ends at split step e: back to the start of its unit or of its share.
  __host__ __device__ Work split(int64_t e, int c) const {
    const int64_t start = begin(c);
    if (e <= start) return {no_more_tiles, 0, 0};
    const int unit = int((e - 1) / k_steps);
    const int64_t unit_begin = int64_t(unit) * k_steps;
    return {whole_units + unit, int((start > unit_begin ? start : unit_begin) - unit_begin), int(e - unit_begin)};
  }
};
// [/region:stream_k]

// A flag in global memory between CTAs that run at the same time: raise it after the data it
// guards is written (release: the data is visible at GPU scope first), and wait for it before
// reading that data (acquire).
__device__ inline void raise_flag(int* flag) {
  asm volatile("st.release.gpu.global.s32 [%0], 1;" ::"l"(flag) : "memory");
}

// A flag never raised waits forever; the bounded-wait build (HOPPER_WAIT_TIMEOUT_NS, as for
// mbarrier_wait) gives up, says which flag, and traps.
__device__ inline void wait_flag(const int* flag) {
#ifdef HOPPER_WAIT_TIMEOUT_NS
  const uint64_t start = global_timer_ns();
#endif
  for (int raised = 0; raised == 0;) {
    asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(raised) : "l"(flag) : "memory");
#ifdef HOPPER_WAIT_TIMEOUT_NS
    if (global_timer_ns() - start > HOPPER_WAIT_TIMEOUT_NS) {
      printf("stream-K flag wait timed out: block %d thread %d waited %.1f s for the flag at %p\n", blockIdx.x,
             threadIdx.x, HOPPER_WAIT_TIMEOUT_NS * 1e-9, static_cast<const void*>(flag));
      __trap();
    }
#endif
  }
}

}  // namespace hopper
