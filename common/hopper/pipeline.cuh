// A ring of STAGES shared-memory stages between one producer thread and the consumer warpgroups
// of a CTA: v3's pair of barriers per stage (`full`: the loads landed; `empty`: every consumer is
// done reading) with the stage and phase bookkeeping behind four calls, so that a kernel reads
// as the algorithm. The Pipeline lives in shared memory, beside the stages it guards.
#pragma once
#include <cstdint>

#include "common/hopper/mbarrier.cuh"

namespace hopper {

// [region:state]
// A position in the ring: the stage, and the parity of the phase its barriers are in on this lap.
template <int STAGES>
struct PipelineState {
  int stage = 0;
  uint32_t phase = 0;
  __device__ void advance() {
    if (++stage == STAGES) {  // a lap of the ring: the barriers' next phase
      stage = 0;
      phase ^= 1;
    }
  }
};
// [/region:state]

// [region:pipeline]
template <int STAGES>
struct Pipeline {
  uint64_t full[STAGES];  // full[s] completes when the producer's loads into stage s have landed
  uint64_t empty[STAGES];  // empty[s] completes when all `consumers` have released stage s

  // By one thread; a block-wide barrier must follow before anyone else touches the pipeline.
  __device__ void init(uint32_t consumers) {
    for (int s = 0; s < STAGES; ++s) {
      mbarrier_init(&full[s], 1);  // one arrival: the producer's, with the byte count
      mbarrier_init(&empty[s], consumers);
    }
    fence_barrier_init();
  }

  // Producer: waits until the stage is empty, then announces `bytes` to come. Returns the barrier
  // the copies into the stage must complete. The first lap waits for parity 1, the phase before
  // a fresh barrier's phase 0, so it finds every stage empty without any consumer.
  __device__ uint64_t* producer_acquire(PipelineState<STAGES> at, uint32_t bytes) {
    producer_wait(at);
    return producer_expect(at, bytes);
  }

  // producer_acquire in two steps, for a producer that writes into the stage itself between them
  // (from v5 on: the label saying which tile the stage belongs to). What the producer stores
  // before producer_expect is visible to every consumer whose consumer_wait returns.
  __device__ void producer_wait(PipelineState<STAGES> at) { mbarrier_wait(&empty[at.stage], at.phase ^ 1); }
  __device__ uint64_t* producer_expect(PipelineState<STAGES> at, uint32_t bytes) {
    mbarrier_arrive_expect_tx(&full[at.stage], bytes);
    return &full[at.stage];
  }

  // Consumer: waits until the stage's loads have landed.
  __device__ void consumer_wait(PipelineState<STAGES> at) { mbarrier_wait(&full[at.stage], at.phase); }

  // Consumer: one of the `consumers` arrivals that init counted hands the stage back, once nothing
  // reads it any more.
  __device__ void consumer_release(PipelineState<STAGES> at) { mbarrier_arrive(&empty[at.stage]); }
};
// [/region:pipeline]

}  // namespace hopper
