// The accumulator fragment of wgmma m64nNk16 with fp32 D (PTX ISA 9.7.15.5, "Matrix fragments
// for wgmma", the figure of the D matrix layout), and its two ways out: straight to row-major C
// in global memory (or transposed), or into a swizzled shared-memory box for a TMA store.
//
// Warp w of the warpgroup owns rows 16w .. 16w+15 of the 64. Lane l holds rows r = 16w + l/4
// and r + 8, and in each group j = 0 .. N/8-1 the columns c = 8j + 2(l%4) and c + 1:
//   d[4j] = D[r][c]   d[4j+1] = D[r][c+1]   d[4j+2] = D[r+8][c]   d[4j+3] = D[r+8][c+1]
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "common/hopper/mbarrier.cuh"
#include "common/hopper/wgmma.cuh"

namespace hopper {

// Two fp32 values as the two 16-bit halves of one register, the first in the low half (the lower
// address once stored).
template <typename T>
__device__ inline uint32_t pack_pair(float x, float y) {
  uint32_t bits;
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 pair = __floats2half2_rn(x, y);
    memcpy(&bits, &pair, sizeof(bits));
  } else {
    const __nv_bfloat162 pair = __floats2bfloat162_rn(x, y);
    memcpy(&bits, &pair, sizeof(bits));
  }
  return bits;
}

// Two neighbouring elements of C from two fp32 values. Out-of-range elements are dropped (ragged
// M and N); the pair goes out as one 4-byte store when the row pitch keeps it aligned.
template <typename T>
__device__ inline void store_pair(T* c, int row, int col, float x, float y, int m, int n) {
  if (row >= m || col >= n) return;
  T* p = c + size_t(row) * n + col;
  if (col + 1 < n && n % 2 == 0) {
    *reinterpret_cast<uint32_t*>(p) = pack_pair<T>(x, y);
  } else {
    p[0] = T(x);
    if (col + 1 < n) p[1] = T(y);
  }
}

// [region:store_fragment]
// Writes this thread's part of a 64 × N accumulator tile whose top-left element is C[row0][col0].
template <int N, typename T>
__device__ inline void store_fragment(const float (&d)[N / 2], T* c, int row0, int col0, int m, int n) {
  const int warp = threadIdx.x % warpgroup_threads / 32, lane = threadIdx.x % 32;
  const int row = row0 + 16 * warp + lane / 4;
  const int col = col0 + 2 * (lane % 4);
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
    store_pair(c, row, col + 8 * j, d[4 * j], d[4 * j + 1], m, n);
    store_pair(c, row + 8, col + 8 * j, d[4 * j + 2], d[4 * j + 3], m, n);
  }
}
// [/region:store_fragment]

// [region:store_fragment_transposed]
// The same tile written transposed: D[r][c] goes to C[c][r], C having `rows` columns. A kernel
// that computed Cᵀ = B·Aᵀ (v9's swapped tiles) stores C this way. Element by element: the eight
// lanes that share a column write eight neighbouring elements of one row of C.
template <int N, typename T>
__device__ inline void store_fragment_transposed(const float (&d)[N / 2], T* c, int row0, int col0, int rows,
                                                 int cols) {
  const int warp = threadIdx.x % warpgroup_threads / 32, lane = threadIdx.x % 32;
  const int row = row0 + 16 * warp + lane / 4;
  const int col = col0 + 2 * (lane % 4);
  const auto put = [&](int r, int col, float x) {
    if (r < rows && col < cols) c[size_t(col) * rows + r] = T(x);
  };
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
    put(row, col + 8 * j, d[4 * j]);
    put(row, col + 8 * j + 1, d[4 * j + 1]);
    put(row + 8, col + 8 * j, d[4 * j + 2]);
    put(row + 8, col + 8 * j + 1, d[4 * j + 3]);
  }
}
// [/region:store_fragment_transposed]

// [region:stmatrix]
// stmatrix.x4 (PTX ISA, "Warp-level matrix store instruction: stmatrix"): the warp stores four
// 8x8 matrices of 16-bit elements. Register i of each lane holds its part of matrix i in the
// accumulator's own pattern (row lane/4, columns 2(lane%4) and +1); lanes 8i .. 8i+7 give the
// shared-memory addresses of matrix i's eight rows, 16 bytes each.
__device__ inline void stmatrix_x4(void* row, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(smem_addr(row)), "r"(r0),
               "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// Writes COLS columns (64 or 32) of this warpgroup's 64 × N accumulator tile into `box`: 64 rows
// of 2·COLS bytes, 1024-byte aligned, swizzled as TMA expects for a box row of that span (128- or
// 64-byte swizzle: 16-byte chunk c of row r at chunk c ^ (r % 8), or c ^ (r / 2 % 4)). p[0 ..
// COLS/4 - 1] hold its COLS/2 accumulator registers packed in pairs, pack_pair(d[2i], d[2i+1]).
// Each stmatrix covers the 16 rows of one warp and 16 columns; the eight rows of a matrix fall in
// eight different bank groups, so no matrix conflicts with itself in shared memory.
template <int COLS = 64>
__device__ inline void store_box_swizzled(const uint32_t* p, void* box) {
  static_assert(swizzle_atom_bytes == 8 * 128, "the box is 1024-byte groups of 128-byte lines");
  static_assert(COLS == 64 || COLS == 32, "a box row is one span of 128- or 64-byte swizzle");
  const int warp = threadIdx.x % warpgroup_threads / 32, lane = threadIdx.x % 32;
  const int matrix = lane / 8, row = 16 * warp + 8 * (matrix % 2) + lane % 8;  // the row this lane addresses
#pragma unroll
  for (int g = 0; g < COLS / 16; ++g) {  // accumulator groups 2g and 2g + 1: 16 columns
    const int offset = 2 * COLS * row + 16 * (2 * g + matrix / 2);  // unswizzled: row's start + its chunk
    const int swizzled = offset ^ (offset / 128 % (COLS / 8)) * 16;  // the chunk bits XOR the 128-byte line's
    stmatrix_x4(static_cast<unsigned char*>(box) + swizzled, p[4 * g], p[4 * g + 1], p[4 * g + 2], p[4 * g + 3]);
  }
}

// Columns 64q .. 64q+63 of the accumulator tile d, rounded to T, into `box` (store_box_swizzled).
template <int N, typename T>
__device__ inline void store_fragment_swizzled(const float (&d)[N / 2], int q, T* box) {
  uint32_t p[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) p[i] = pack_pair<T>(d[32 * q + 2 * i], d[32 * q + 2 * i + 1]);
  store_box_swizzled(p, box);
}
// [/region:stmatrix]

// [region:stmatrix_trans]
// stmatrix.x4.trans: the same four matrices, each stored transposed: lanes 8i .. 8i+7 give the
// addresses of the eight rows of matrix i's transpose, that is of its eight columns.
__device__ inline void stmatrix_x4_trans(void* row, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(smem_addr(row)), "r"(r0),
               "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// This warpgroup's 64 × N accumulator tile d, rounded to T and transposed, into `box`: N rows of
// 128 bytes (the tile's 64 rows become each row's 64 columns), 128-byte swizzled as TMA expects,
// 1024-byte aligned. A kernel that computed Cᵀ = B·Aᵀ (v9's swapped tiles) stores C through it.
// Each stmatrix covers 16 columns of d and the 16 rows of one warp, which land in two 16-byte
// chunks of 16 rows of the box; a matrix's eight rows fall in eight different chunks.
template <int N, typename T>
__device__ inline void store_fragment_transposed_swizzled(const float (&d)[N / 2], T* box) {
  static_assert(N % 16 == 0, "whole stmatrix.x4: 16 columns at a time");
  const int warp = threadIdx.x % warpgroup_threads / 32, lane = threadIdx.x % 32;
  const int matrix = lane / 8;
  const int chunk = 2 * warp + matrix % 2;  // the 8 rows of d this lane's matrix holds, as a chunk of a row
  unsigned char* base = reinterpret_cast<unsigned char*>(box);
#pragma unroll
  for (int t = 0; t < N / 16; ++t) {  // accumulator groups 2t and 2t + 1: columns 16t .. 16t+15 of d
    const int row = 16 * t + 8 * (matrix / 2) + lane % 8;  // the row of the box this lane addresses
    stmatrix_x4_trans(base + 128 * row + 16 * (chunk ^ (row % 8)), pack_pair<T>(d[8 * t], d[8 * t + 1]),
                      pack_pair<T>(d[8 * t + 2], d[8 * t + 3]), pack_pair<T>(d[8 * t + 4], d[8 * t + 5]),
                      pack_pair<T>(d[8 * t + 6], d[8 * t + 7]));
  }
}
// [/region:stmatrix_trans]

}  // namespace hopper
