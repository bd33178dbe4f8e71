// v0_naive: one thread per element of C, on the CUDA cores.
//
// Thread (row, col) walks the k dimension on its own: it reads row `row` of A and row `col` of B
// straight from global memory and accumulates their dot product in fp32. Nothing is shared
// between threads except what the caches happen to keep, and no tensor core is used: this is the
// slow first rung that every later step is measured against.
#include "v0_naive/matmul.h"

#include "common/check.h"
#include "common/problem.h"
#include "common/tiles.h"

namespace v0_naive {

// [region:constants]
// A block of 32 × 8 threads covers a 8 × 32 tile of C: x runs along a row of C, so a warp's
// stores to C are coalesced. The grid is one-dimensional over the tiles, row of tiles by row of
// tiles, because a grid's y dimension stops at 65535 and M may be larger.
constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 8;
// [/region:constants]

// [region:kernel]
template <typename T>
__global__ void matmul_kernel(const T* a, const T* b, T* c, int m, int n, int k) {
  const int tiles_n = matmul::ceil_div(n, BLOCK_X);
  const int col = int(blockIdx.x % tiles_n) * BLOCK_X + threadIdx.x;
  const int row = int(blockIdx.x / tiles_n) * BLOCK_Y + threadIdx.y;
  if (row >= m || col >= n) return;

  const T* a_row = a + size_t(row) * k;  // row `row` of A
  const T* b_row = b + size_t(col) * k;  // row `col` of B, i.e. column `col` of Bᵀ
  float acc = 0.0f;
  for (int i = 0; i < k; ++i) acc += float(a_row[i]) * float(b_row[i]);
  c[size_t(row) * n + col] = T(acc);
}
// [/region:kernel]

// [region:launch]
template <typename T>
void launch(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream) {
  matmul::validate_shape({m, n, k});
  matmul::validate_operands(a, b, c);
  const dim3 block(BLOCK_X, BLOCK_Y);
  const int64_t tiles = int64_t(matmul::ceil_div(m, BLOCK_Y)) * matmul::ceil_div(n, BLOCK_X);
  matmul::validate_grid(tiles);
  matmul_kernel<<<unsigned(tiles), block, 0, stream>>>(a, b, c, m, n, k);
  CUDA_CHECK(cudaGetLastError());
}
// [/region:launch]

void matmul(const __half* a, const __half* b, __half* c, int m, int n, int k, cudaStream_t stream) {
  launch(a, b, c, m, n, k, stream);
}

void matmul(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k,
            cudaStream_t stream) {
  launch(a, b, c, m, n, k, stream);
}

const matmul::Version version{
    "v0_naive",
    "one thread per output element (CUDA cores)",
    matmul,
    matmul,
    {
        {"BLOCK_X", BLOCK_X},
        {"BLOCK_Y", BLOCK_Y},
    },
};

}  // namespace v0_naive
