// setmaxnreg (PTX ISA, "Miscellaneous Instructions: setmaxnreg"): a warpgroup changes
// how many registers each of its threads holds. .dec hands registers back to the CTA's pool,
// .inc takes them from it, waiting until the pool has enough. Every warp of the warpgroup must
// execute the same one; the count is a multiple of 8 from 24 to 256.
#pragma once

namespace hopper {

// [region:setmaxnreg]
template <int count>
__device__ inline void release_registers() {
  static_assert(count % 8 == 0 && count >= 24 && count <= 256, "setmaxnreg takes a multiple of 8 in [24, 256]");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(count));
}

template <int count>
__device__ inline void claim_registers() {
  static_assert(count % 8 == 0 && count >= 24 && count <= 256, "setmaxnreg takes a multiple of 8 in [24, 256]");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(count));
}
// [/region:setmaxnreg]

}  // namespace hopper
