// WGMMA: warpgroup matrix multiply-accumulate, D += A·B with A and B read from shared memory
// through descriptors and D in the registers of the 128 threads of a warpgroup (PTX ISA 9.7.15,
// "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions"). The instructions
// are asynchronous: issue, commit the group, and wait before touching D or the tiles again.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "common/hopper/descriptor.h"
#include "common/hopper/mbarrier.cuh"

namespace hopper {

__device__ inline uint64_t smem_descriptor(const void* tile) { return make_smem_descriptor(smem_addr(tile)); }

// wgmma.fence: orders the warpgroup's earlier accesses to the accumulator registers (and to
// registers holding A fragments) before the wgmma that follows. Needed before the first wgmma
// whose accumulators ordinary instructions wrote (the zeroing). It does not order shared memory:
// tiles written by ordinary stores need fence.proxy.async.shared::cta before wgmma reads them.
__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

// wgmma.commit_group (9.7.15.6.3): closes a group of the wgmmas issued so far.
__device__ inline void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }

// wgmma.wait_group (9.7.15.6.4): waits until at most `pending` groups are still in flight.
template <int pending>
__device__ inline void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(pending) : "memory");
}

// The compiler does not know that an in-flight wgmma owns the accumulators: this empty asm
// "writes" each one, so no read of D moves above a wait and no write below a wgmma.
template <int count>
__device__ inline void fence_accumulators(float (&d)[count]) {
#pragma unroll
  for (int i = 0; i < count; ++i) asm volatile("" : "+f"(d[i]) : : "memory");
}

// The register operands of one wgmma are generated here, not typed per shape: HOPPER_D<n>(i)
// lists d[i] .. d[i+n-1] as read-write registers, and HOPPER_NAMES_<n> names them %0 .. %(n-1)
// in the instruction text (decimal names built ten at a time).
#define HOPPER_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define HOPPER_D32(i) HOPPER_D8(i), HOPPER_D8(i + 8), HOPPER_D8(i + 16), HOPPER_D8(i + 24)
#define HOPPER_D64(i) HOPPER_D32(i), HOPPER_D32(i + 32)
#define HOPPER_D96(i) HOPPER_D64(i), HOPPER_D32(i + 64)
#define HOPPER_D128(i) HOPPER_D64(i), HOPPER_D64(i + 64)
#define HOPPER_TEN(t) "%" #t "0, %" #t "1, %" #t "2, %" #t "3, %" #t "4, %" #t "5, %" #t "6, %" #t "7, %" #t "8, %" #t "9"
#define HOPPER_NAMES_32 HOPPER_TEN() ", " HOPPER_TEN(1) ", " HOPPER_TEN(2) ", %30, %31"
#define HOPPER_NAMES_64 \
  HOPPER_TEN() ", " HOPPER_TEN(1) ", " HOPPER_TEN(2) ", " HOPPER_TEN(3) ", " HOPPER_TEN(4) ", " HOPPER_TEN(5) ", %60, %61, %62, %63"
#define HOPPER_NAMES_96                                                                                              \
  HOPPER_TEN() ", " HOPPER_TEN(1) ", " HOPPER_TEN(2) ", " HOPPER_TEN(3) ", " HOPPER_TEN(4) ", " HOPPER_TEN(5) ", " \
  HOPPER_TEN(6) ", " HOPPER_TEN(7) ", " HOPPER_TEN(8) ", %90, %91, %92, %93, %94, %95"
#define HOPPER_NAMES_128                                                                                             \
  HOPPER_TEN() ", " HOPPER_TEN(1) ", " HOPPER_TEN(2) ", " HOPPER_TEN(3) ", " HOPPER_TEN(4) ", " HOPPER_TEN(5) ", " \
  HOPPER_TEN(6) ", " HOPPER_TEN(7) ", " HOPPER_TEN(8) ", " HOPPER_TEN(9) ", " HOPPER_TEN(10) ", " HOPPER_TEN(11)  \
  ", %120, %121, %122, %123, %124, %125, %126, %127"

// One wgmma.mma_async m64nNk16 with fp32 accumulators; A and B both K-major (no transpose), no
// negation; scale-d = 0 overwrites D instead of accumulating. The operands after the count
// accumulators are %count (A's descriptor), %count+1 (B's) and %count+2 (scale-d); the
// accumulator operands come last, as the variadic arguments, because they hold commas.
#define HOPPER_WGMMA(N, TYPE, NAMES, DESC_A, DESC_B, SCALE_D, ...)                                               \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SCALE_D ", 0;\n"                                             \
               "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE " {" NAMES "}, " DESC_A ", " DESC_B \
               ", p, 1, 1, 0, 0;\n}"                                                                             \
               : __VA_ARGS__                                                                                     \
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)))

#define HOPPER_WGMMA_BOTH_TYPES(N, NAMES, DESC_A, DESC_B, SCALE_D, ...)    \
  if constexpr (std::is_same_v<T, __half>)                                 \
    HOPPER_WGMMA(N, "f16", NAMES, DESC_A, DESC_B, SCALE_D, __VA_ARGS__);   \
  else                                                                     \
    HOPPER_WGMMA(N, "bf16", NAMES, DESC_A, DESC_B, SCALE_D, __VA_ARGS__)

// [region:wgmma]
// D (64 × N, N/2 floats per thread) += A (64 × 16) · B (N × 16)ᵀ, both tiles in shared memory.
template <typename T, int N>
__device__ inline void wgmma(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, bool accumulate = true) {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, "fp16 or bf16");
  static_assert(N == 64 || N == 128 || N == 192 || N == 256, "the shapes this course uses");
  if constexpr (N == 64) {
    HOPPER_WGMMA_BOTH_TYPES(64, HOPPER_NAMES_32, "%32", "%33", "%34", HOPPER_D32(0));
  } else if constexpr (N == 128) {
    HOPPER_WGMMA_BOTH_TYPES(128, HOPPER_NAMES_64, "%64", "%65", "%66", HOPPER_D64(0));
  } else if constexpr (N == 192) {
    HOPPER_WGMMA_BOTH_TYPES(192, HOPPER_NAMES_96, "%96", "%97", "%98", HOPPER_D96(0));
  } else {
    HOPPER_WGMMA_BOTH_TYPES(256, HOPPER_NAMES_128, "%128", "%129", "%130", HOPPER_D128(0));
  }
}
// [/region:wgmma]

}  // namespace hopper
