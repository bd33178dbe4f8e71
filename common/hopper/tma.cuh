// TMA on the device: the bulk tensor copies between global and shared memory (PTX ISA 9.7.9.25,
// cp.async.bulk.tensor). One thread issues a whole tile. A load lands swizzled as the tensor map
// says and reports its bytes to an mbarrier; a store reads a tile laid out the same way and is
// tracked by bulk async-groups (PTX ISA, cp.async.bulk.commit_group and cp.async.bulk.wait_group).
#pragma once
#include <cuda.h>

#include <cstdint>

#include "common/hopper/mbarrier.cuh"

namespace hopper {

// [region:tma_load]
// Copies the box at (col, row) of `map` (coordinates in elements, innermost first) into `dst`,
// completing `bytes` of the current phase of `bar`. `map` must be a __grid_constant__ kernel
// parameter (or otherwise live in global, constant or parameter memory), never a local copy.
__device__ inline void tma_load_2d(void* dst, const CUtensorMap* map, uint64_t* bar, int col, int row) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(smem_addr(bar))
      : "memory");
}
// [/region:tma_load]

// [region:bulk_load]
// Copies `bytes` (a multiple of 16) of contiguous global memory at `src` (16-byte aligned) into
// `dst`, completing that many bytes of the current phase of `bar`: TMA without a tensor map, for
// a plain run of values (v10's block scales).
__device__ inline void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(src)), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}
// [/region:bulk_load]

// Starts fetching `map` (a __grid_constant__ parameter) into the TMA unit's descriptor cache, so the
// first load that names it does not wait for it as well as for its data.
__device__ inline void prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// [region:tma_load_evict_first]
// An L2 cache policy (PTX ISA, createpolicy) that makes the lines a load brings in the first the L2
// evicts when it needs room: for data read once, which should not push out what is read again.
__device__ inline uint64_t l2_evict_first() {
  uint64_t policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// tma_load_2d with an L2 cache policy (l2_evict_first) for the lines it reads; the SASS shows it as
// UTMALDG's desc[...] operand.
__device__ inline void tma_load_2d(void* dst, const CUtensorMap* map, uint64_t* bar, int col, int row,
                                   uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(smem_addr(bar)), "l"(policy)
      : "memory");
}
// [/region:tma_load_evict_first]

// [region:tma_load_multicast]
// tma_load_2d for a cluster: one copy, delivered to `dst` and completing `bar` at the same offsets
// in the shared memory of every CTA whose bit is set in `ctas` (bit r: rank r), this one included
// if its bit is set. Each receiving CTA's barrier must expect the bytes.
__device__ inline void tma_load_2d_multicast(void* dst, const CUtensorMap* map, uint64_t* bar, int col, int row,
                                             uint16_t ctas) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(smem_addr(bar)), "h"(ctas)
      : "memory");
}
// [/region:tma_load_multicast]

// [region:tma_store]
// Copies `src` (laid out as the map's box, swizzled) to the box at (col, row) of `map`. Elements
// outside the tensor are not written: the copy engine clips ragged edges. The copy runs in the
// async proxy: the threads that wrote `src` must each run fence_proxy_async() first.
__device__ inline void tma_store_2d(const CUtensorMap* map, const void* src, int col, int row) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(col), "r"(row), "r"(smem_addr(src))
               : "memory");
}

// Closes a bulk async-group: the stores this thread issued since the previous commit.
__device__ inline void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

// Waits until at most `pending` of this thread's committed groups still read their source: the
// shared memory of the others may be written again. Their writes to global may still be in flight.
template <int pending>
__device__ inline void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(pending) : "memory");
}

// Waits until every group this thread committed has completed, writes to global included.
__device__ inline void tma_store_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

// Orders this thread's earlier generic-proxy writes to shared memory (st.shared, stmatrix) before
// later async-proxy accesses to it (the TMA store): without it the copy engine may read stale data.
__device__ inline void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
// [/region:tma_store]

}  // namespace hopper
