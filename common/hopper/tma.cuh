// TMA on the device: the bulk tensor copy from global to shared memory (PTX ISA 9.7.9.25,
// cp.async.bulk.tensor). One thread issues a whole tile; the copy engine writes it, swizzled as
// the tensor map says, and reports the bytes to an mbarrier.
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

}  // namespace hopper
