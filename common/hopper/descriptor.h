// The WGMMA shared-memory matrix descriptor (PTX ISA 9.7.15.5.1, "Matrix Descriptor Format"),
// for the one layout this course uses: a K-major tile of 2-byte elements, 64 of them (128 bytes)
// per row, written by TMA with 128-byte swizzle. Host and device code alike, so the host tests
// check every field.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace hopper {

// Rows of a swizzle atom: 8 rows × 128 bytes = 1024 bytes, the alignment the tile needs.
inline constexpr uint32_t swizzle_atom_bytes = 1024;

// [region:descriptor]
// Address-like fields hold bytes >> 4 (16-byte units): forgetting the shift is the classic bug.
//   bits  0-13  start address
//   bits 16-29  leading-dimension byte offset: unused for K-major swizzled tiles, 1 by convention
//   bits 32-45  stride-dimension byte offset: from one 8-row group to the next, 1024 bytes
//   bits 49-51  base offset: 0, because tiles are 1024-byte aligned
//   bits 62-63  swizzle mode: 1 = 128-byte swizzle
__host__ __device__ constexpr uint64_t make_smem_descriptor(uint32_t smem_byte_address) {
  return uint64_t((smem_byte_address & 0x3FFFF) >> 4)  //
         | uint64_t(16 >> 4) << 16  //
         | uint64_t(swizzle_atom_bytes >> 4) << 32  //
         | uint64_t(1) << 62;
}
// [/region:descriptor]

}  // namespace hopper
