// The accumulator fragment of wgmma m64nNk16 with fp32 D (PTX ISA 9.7.15.5, "Matrix fragments
// for wgmma", the figure of the D matrix layout), and its store to row-major C.
//
// Warp w of the warpgroup owns rows 16w .. 16w+15 of the 64. Lane l holds rows r = 16w + l/4
// and r + 8, and in each group j = 0 .. N/8-1 the columns c = 8j + 2(l%4) and c + 1:
//   d[4j] = D[r][c]   d[4j+1] = D[r][c+1]   d[4j+2] = D[r+8][c]   d[4j+3] = D[r+8][c+1]
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "common/hopper/wgmma.cuh"

namespace hopper {

// Two neighbouring elements of C from two fp32 values. Out-of-range elements are dropped (ragged
// M and N); the pair goes out as one 4-byte store when the row pitch keeps it aligned.
template <typename T>
__device__ inline void store_pair(T* c, int row, int col, float x, float y, int m, int n) {
  if (row >= m || col >= n) return;
  T* p = c + size_t(row) * n + col;
  if (col + 1 < n && n % 2 == 0) {
    if constexpr (std::is_same_v<T, __half>)
      *reinterpret_cast<__half2*>(p) = __floats2half2_rn(x, y);
    else
      *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(x, y);
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

}  // namespace hopper
