// The scheduler role of a persistent kernel (v5 on): which output tile a CTA computes next.
#pragma once
#include <cstdint>

#include "common/hopper/cluster.cuh"
#include "common/tiles.h"

namespace hopper {

inline constexpr int no_more_tiles = -1;

// [region:scheduler]
// A unit of work is a CLUSTER_M x CLUSTER_N block of tiles, one per CTA of a cluster (without
// clusters, 1 x 1: one tile), and the CTAs of a cluster walk the same units. Cluster c starts on
// unit c, known without asking. After that, one of two schedules:
//   - the static stride (no counter): cluster c takes units c + clusters, c + 2·clusters, ...,
//     which each CTA works out alone. No state: any number of launches may run at once.
//   - the dynamic queue (a TileQueue's counter): a cluster takes whatever unit is next when it
//     asks, so one that falls behind takes fewer. With clusters, only rank 0 asks, and sends the
//     unit to its peers (a kernel's ClusterChannel).
// The unit is placed in grouped order among the blocks, and the CTA's rank picks its tile in it.
template <int GROUP, int CLUSTER_M = 1, int CLUSTER_N = 1>
struct TileScheduler {
  int units;
  int blocks_m, blocks_n;  // cluster blocks along M and N: units = blocks_m · blocks_n
  int* counter;  // the dynamic queue, 0 at every launch's start; null: the static stride

  __device__ int first() const { return checked(cluster()); }
  // With the queue, each call draws: with clusters, only rank 0 calls it.
  __device__ int next(int current) const { return checked(counter != nullptr ? draw() : current + clusters()); }

  // The tile of unit `unit` that CTA `rank` of the cluster computes. At a ragged edge a block may
  // stick out of C: the CTA computes a tile wholly outside it, its loads zero-filled, its stores
  // clipped, and its peers still get their shared operand.
  __device__ matmul::TileCoord tile(int unit, uint32_t rank = 0) const {
    const matmul::TileCoord block = matmul::grouped_tile(unit, blocks_m, blocks_n, GROUP);
    return {block.m * CLUSTER_M + int(rank) % CLUSTER_M, block.n * CLUSTER_N + int(rank) / CLUSTER_M};
  }

 private:
  __device__ int checked(int unit) const { return unit < units ? unit : no_more_tiles; }

  // One CTA is its own cluster: its block index, read without the cluster registers.
  __device__ static int cluster() {
    if constexpr (CLUSTER_M * CLUSTER_N == 1) return int(blockIdx.x);
    return cluster_id();
  }
  __device__ static int clusters() {
    if constexpr (CLUSTER_M * CLUSTER_N == 1) return int(gridDim.x);
    return cluster_count();
  }

  // The queue hands out the units from the cluster count on. Every cluster draws until it gets a
  // number past the last unit, so the draws return clusters .. units + clusters - 1, each once;
  // the cluster that gets the last one resets the counter for the next launch with this queue,
  // which the queue's contract says cannot start before this one has ended.
  __device__ int draw() const {
    const int unit = clusters() + atomicAdd(counter, 1);
    if (unit == units + clusters() - 1) atomicExch(counter, 0);
    return unit;
  }
};
// [/region:scheduler]

}  // namespace hopper
