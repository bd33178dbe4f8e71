// TMA on the host: the tensor map that describes a row-major, K-major operand to the copy
// engine (CUDA driver API, cuTensorMapEncodeTiled). Pure parameter arithmetic first, so the
// host tests can check it without a GPU; then the encoding itself.
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

namespace hopper {

// 128-byte swizzle: the copy engine permutes 16-byte chunks within each 128-byte row of a
// 1024-byte group of 8 rows, the layout WGMMA reads without bank conflicts. A box row is one
// swizzle span: 128 bytes, or 64 under 64-byte swizzle (chunks permuted within 64-byte rows of a
// 512-byte group), which only v9's boxes of 32 columns of C use.
inline constexpr int swizzle_bytes = 128;

// What cuTensorMapEncodeTiled receives for a rows × cols row-major matrix of `element_bytes`-byte
// elements (2: fp16 and bf16; 1: e4m3) loaded as box_rows × box_cols tiles. Arrays are innermost
// dimension first, as the driver wants.
struct TileMapParams {
  uint64_t dims[2];  // {cols, rows} in elements
  uint64_t row_pitch_bytes;  // stride of dimension 1; dimension 0 is contiguous
  uint32_t box[2];  // {box_cols, box_rows} in elements
  uint32_t box_bytes;  // what one copy delivers, out-of-bounds zero fill included
  uint32_t swizzle;  // bytes of the swizzle span: the box row's, 128 or 64
  // Whether a miss in L2 fetches 256 bytes around the line asked for. The neighbour is the next
  // K-step's: a prefetch that pays where tiles reread their operands, and costs a stream read once
  // (v9's narrow swapped tiles, docs/v9_stream_k.md).
  bool promote_l2 = true;
};

// Throws std::invalid_argument naming the violated rule: the row pitch a multiple of 16 bytes,
// a box row of 128 or 64 bytes (one swizzle span), at most 256 box rows.
TileMapParams tile_map_params(int64_t rows, int64_t cols, int box_rows, int box_cols, int element_bytes = 2);

// The copy engine's name for an element type: fp16 and bf16, and e4m3, which it copies as bytes
// (it has no FP8 type: it only moves them).
template <typename T>
constexpr CUtensorMapDataType tma_type() {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __nv_fp8_e4m3>,
                "tile maps hold fp16, bf16 or e4m3");
  if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  return std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
}

// The encoded map for `base` (16-byte aligned device memory) under those parameters, with the
// box row's swizzle and zero fill out of bounds. Throws std::runtime_error if the driver refuses.
CUtensorMap encode_tile_map(const void* base, CUtensorMapDataType type, const TileMapParams& p);

template <typename T>
CUtensorMap make_tile_map(const T* base, const TileMapParams& p) {
  return encode_tile_map(base, tma_type<T>(), p);
}

}  // namespace hopper
