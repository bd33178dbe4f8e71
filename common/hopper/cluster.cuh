// Thread block clusters (PTX ISA, "Cluster of Cooperative Thread Arrays"): CTAs launched together on
// neighbouring SMs, which can read, write and arrive on each other's shared memory (distributed
// shared memory) and receive one TMA load together (multicast).
#pragma once
#include <cstdint>

#include "common/hopper/mbarrier.cuh"

namespace hopper {

// This CTA's rank in its cluster, 0 .. cluster size - 1.
__device__ inline uint32_t cluster_rank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

// The cluster's index in the grid, and the number of clusters (a one-dimensional grid).
__device__ inline int cluster_id() {
  uint32_t id;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(id));
  return int(id);
}
__device__ inline int cluster_count() {
  uint32_t count;
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(count));
  return int(count);
}

// [region:cluster_sync]
// Every thread of every CTA of the cluster arrives, then waits for all the cluster's threads that
// have not exited (barrier.cluster.arrive / wait). Release and acquire: what a thread wrote before,
// in its own or another CTA's shared memory, is visible to every thread after (asynchronous
// operations have waits of their own). Before the first remote access (the peers' barriers must
// be initialised) and before exit (no peer may still write into or arrive on a CTA that has left).
__device__ inline void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// [/region:cluster_sync]

// [region:remote_arrive]
// One arrival on the barrier at the same place as `bar` in the shared memory of CTA `rank` of the
// cluster (mapa turns the local address into that CTA's). Used to hand back a stage whose reads
// (WGMMA's, already waited for) are complete: no write of this thread needs publishing, so the
// default .release.cta suffices; .release.cluster would add a GPU-wide memory barrier per arrival.
__device__ inline void mbarrier_arrive_cluster(uint64_t* bar, uint32_t rank) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}" ::"r"(smem_addr(bar)),
      "r"(rank)
      : "memory");
}
// [/region:remote_arrive]

// [region:store_remote]
// st.async: writes `value` at the same place as `slot` in the shared memory of CTA `rank` of the
// cluster, and completes its 4 bytes on that CTA's barrier at the same place as `bar`, the way a
// TMA load completes its bytes. The receiver waits on the barrier, not on this thread.
__device__ inline void store_remote(int* slot, int value, uint64_t* bar, uint32_t rank) {
  asm volatile(
      "{\n"
      ".reg .b32 remote_slot, remote_bar;\n"
      "mapa.shared::cluster.u32 remote_slot, %0, %2;\n"
      "mapa.shared::cluster.u32 remote_bar, %1, %2;\n"
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [remote_slot], %3, [remote_bar];\n"
      "}" ::"r"(smem_addr(slot)),
      "r"(smem_addr(bar)), "r"(rank), "r"(value)
      : "memory");
}
// [/region:store_remote]

}  // namespace hopper
