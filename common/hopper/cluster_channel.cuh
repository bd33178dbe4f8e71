// A ring of SLOTS ints that rank 0 of a cluster sends to every other CTA of the cluster (its
// peers) through their shared memory: from v7 on, the units of work rank 0 draws from the
// dynamic queue. Each slot has v3's pair of barriers, split across the cluster: `full` in each
// peer completes when rank 0's write has landed there; `empty` in rank 0 completes when every
// peer has read the slot. Rank 0 sends, the peers receive, each with its own PipelineState.
#pragma once
#include <cstdint>

#include "common/hopper/cluster.cuh"
#include "common/hopper/mbarrier.cuh"
#include "common/hopper/pipeline.cuh"

namespace hopper {

// [region:channel]
template <int SLOTS>
struct ClusterChannel {
  int value[SLOTS];
  uint64_t full[SLOTS];  // in a peer: the value rank 0 wrote into slot s has landed
  uint64_t empty[SLOTS];  // in rank 0: every peer has read slot s

  // By one thread of every CTA; a cluster barrier must follow before anyone uses the channel.
  __device__ void init(uint32_t peers) {
    for (int s = 0; s < SLOTS; ++s) {
      mbarrier_init(&full[s], 1);  // one arrival: the peer's own, announcing the 4 bytes
      mbarrier_init(&empty[s], peers);
    }
    fence_barrier_init();
  }

  // Rank 0: waits until every peer has read what the slot held a lap ago, then writes `v` into
  // the slot of each peer (ranks 1 .. peers). Returns `v`.
  __device__ int send(PipelineState<SLOTS>& at, int v, uint32_t peers) {
    mbarrier_wait(&empty[at.stage], at.phase ^ 1);
    for (uint32_t peer = 1; peer <= peers; ++peer) store_remote(&value[at.stage], v, &full[at.stage], peer);
    at.advance();
    return v;
  }

  // A peer: announces the 4 bytes, waits until they have landed (acquire at cluster scope: rank 0
  // wrote them), reads them, and hands the slot back to rank 0.
  __device__ int receive(PipelineState<SLOTS>& at) {
    mbarrier_arrive_expect_tx(&full[at.stage], sizeof(int));
    mbarrier_wait<Scope::cluster>(&full[at.stage], at.phase);
    const int v = value[at.stage];
    mbarrier_arrive_cluster(&empty[at.stage], 0);
    at.advance();
    return v;
  }
};
// [/region:channel]

}  // namespace hopper
