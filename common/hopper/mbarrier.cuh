// mbarrier: a 64-bit shared-memory barrier that counts thread arrivals and bytes delivered by
// the copy engine (PTX ISA 9.7.13.15, "Parallel Synchronization and Communication
// Instructions: mbarrier"). A barrier completes a phase when every expected arrival has come
// and every announced byte has landed; waiters name the phase by its parity, 0 or 1.
#pragma once
#include <cstdint>
#include <cstdio>

namespace hopper {

__device__ inline uint32_t smem_addr(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// mbarrier.init: `arrivals` arrivals complete each phase. A fresh barrier is in phase 0, so a
// wait on parity 1 (the phase "before" it) returns at once.
__device__ inline void mbarrier_init(uint64_t* bar, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(arrivals) : "memory");
}

// fence.mbarrier_init (PTX ISA 9.7.13.4, membar/fence): orders this thread's earlier mbarrier.init
// operations, with release semantics at cluster scope, before what other threads of the cluster do
// once they have synchronised with it. Within one CTA the block barrier that must follow is that
// synchronisation; the fence matters where other CTAs of a cluster use the barriers.
__device__ inline void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

// [region:arrive_expect_tx]
// mbarrier.arrive.expect_tx: one arrival, and `bytes` more to wait for in this phase. The count
// must be exactly what the copies deliver; TMA counts the whole box, zero-filled parts included.
__device__ inline void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
// [/region:arrive_expect_tx]

// mbarrier.arrive: one arrival.
__device__ inline void mbarrier_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

// Whose writes a completed phase makes visible to the waiting thread: those published at CTA
// scope (the CTA's own threads, the copies the barrier counted), or at cluster scope as well (from
// v7 on: a phase another CTA completed with data it wrote here with st.async).
enum class Scope { cta, cluster };

// [region:try_wait]
// mbarrier.try_wait.parity: true once the phase with this parity has completed. The hardware
// may suspend the thread for a while before answering false, so spinning on it is cheap.
template <Scope S = Scope::cta>
__device__ inline bool mbarrier_try_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done;
  if constexpr (S == Scope::cta)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(smem_addr(bar)), "r"(parity)
                 : "memory");
  else
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
  return done;
}
// [/region:try_wait]

#ifdef HOPPER_WAIT_TIMEOUT_NS
__device__ inline uint64_t global_timer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#endif

// Blocks until the phase with this parity has completed. A wrong phase or a short byte count
// makes this wait forever; built with HOPPER_WAIT_TIMEOUT_NS (cmake -DMATMUL_BOUNDED_WAITS=ON)
// it gives up after that long instead, says who waited for what, and traps.
template <Scope S = Scope::cta>
__device__ inline void mbarrier_wait(uint64_t* bar, uint32_t parity) {
#ifdef HOPPER_WAIT_TIMEOUT_NS
  const uint64_t start = global_timer_ns();
  while (!mbarrier_try_wait<S>(bar, parity)) {
    if (global_timer_ns() - start > HOPPER_WAIT_TIMEOUT_NS) {
      printf(
          "mbarrier wait timed out: block (%d,%d,%d) thread %d waited %.1f s for parity %u of the barrier at shared "
          "address 0x%x\n",
          blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, HOPPER_WAIT_TIMEOUT_NS * 1e-9, parity, smem_addr(bar));
      __trap();
    }
  }
#else
  while (!mbarrier_try_wait<S>(bar, parity)) {
  }
#endif
}

}  // namespace hopper
