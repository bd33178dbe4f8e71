// v1_tma: TMA loads and WGMMA, one stage.
//
// One CTA computes one BM × BN tile of C with one warpgroup (128 threads). For each K-step,
// one thread announces the bytes on an mbarrier and asks the copy engine (TMA) for the A and B
// tiles; everyone waits for the barrier; the warpgroup runs BK/16 tensor-core instructions
// (WGMMA) straight from shared memory, waits for them, and the block synchronises before the
// tiles are overwritten. No thread computes an address of A or B, no thread moves a byte of them.
#include <cuda.h>

#include "common/check.h"
#include "common/hopper/fragment.cuh"
#include "common/hopper/launch.h"
#include "common/hopper/mbarrier.cuh"
#include "common/hopper/tensor_map.h"
#include "common/hopper/tma.cuh"
#include "common/hopper/wgmma.cuh"
#include "common/problem.h"
#include "common/tiles.h"
#include "v1_tma/matmul.h"

namespace v1_tma {

// [region:constants]
// The tile, chosen by measurement (this version's page in docs/). BK = 64 two-byte elements is
// one 128-byte swizzled row, the widest box row TMA's 128-byte swizzle allows. A WGMMA covers
// 64 rows, so the warpgroup issues BM / 64 of them per 16-wide K slice, each with BN/2 fp32
// accumulators per thread.
constexpr int BM = 128;
constexpr int BN = 128;
constexpr int BK = 64;
constexpr int THREADS = hopper::warpgroup_threads;  // one warpgroup
// [/region:constants]

// [region:smem]
// Each tile starts on a 1024-byte boundary: the 128-byte swizzle pattern repeats every 8 rows
// of 128 bytes, and both TMA and the WGMMA descriptor assume the pattern starts at the tile.
template <typename T>
struct SharedStorage {
  alignas(hopper::swizzle_atom_bytes) T a[BM * BK];  // BM rows of A, K-major, swizzled
  alignas(hopper::swizzle_atom_bytes) T b[BN * BK];  // BN rows of B, K-major, swizzled
  uint64_t full;  // completes when both tiles of the current K-step have landed
};
// [/region:smem]

// [region:kernel]
template <typename T>
__global__ void __launch_bounds__(THREADS)
    matmul_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, T* c, int m,
                  int n, int k) {
  extern __shared__ unsigned char smem_bytes[];
  auto& smem = *reinterpret_cast<SharedStorage<T>*>(matmul::align_up(smem_bytes, hopper::swizzle_atom_bytes));
  const int tiles_n = matmul::ceil_div(n, BN);
  const int tile_row = int(blockIdx.x / tiles_n) * BM;
  const int tile_col = int(blockIdx.x % tiles_n) * BN;

  if (threadIdx.x == 0) {
    hopper::mbarrier_init(&smem.full, 1);  // one arrival: the thread that issues the loads
    hopper::fence_barrier_init();
  }
  __syncthreads();

  float acc[BM / hopper::wgmma_m][BN / 2] = {};
  int phase = 0;
  for (int k_tile = 0; k_tile < matmul::ceil_div(k, BK); ++k_tile) {
    if (threadIdx.x == 0) {
      hopper::mbarrier_arrive_expect_tx(&smem.full, sizeof(smem.a) + sizeof(smem.b));
      hopper::tma_load_2d(smem.a, &a_map, &smem.full, k_tile * BK, tile_row);
      hopper::tma_load_2d(smem.b, &b_map, &smem.full, k_tile * BK, tile_col);
    }
    hopper::mbarrier_wait(&smem.full, phase);
    phase ^= 1;

    hopper::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / hopper::wgmma_k; ++kk) {
#pragma unroll
      for (int i = 0; i < BM / hopper::wgmma_m; ++i) {
        // Moving along K inside a swizzled row: 16 elements = 32 bytes further; the hardware
        // applies the swizzle to the address it computes.
        const uint64_t desc_a = hopper::smem_descriptor(&smem.a[i * hopper::wgmma_m * BK + kk * hopper::wgmma_k]);
        const uint64_t desc_b = hopper::smem_descriptor(&smem.b[kk * hopper::wgmma_k]);
        hopper::wgmma<T, BN>(acc[i], desc_a, desc_b);
      }
    }
    hopper::wgmma_commit();
    hopper::wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < BM / hopper::wgmma_m; ++i) hopper::fence_accumulators(acc[i]);
    __syncthreads();  // every warp is done with the tiles before thread 0 refills them
  }

#pragma unroll
  for (int i = 0; i < BM / hopper::wgmma_m; ++i)
    hopper::store_fragment<BN>(acc[i], c, tile_row + i * hopper::wgmma_m, tile_col, m, n);
}
// [/region:kernel]

// [region:launch]
template <typename T>
void launch(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream) {
  matmul::validate_shape({m, n, k});
  matmul::validate_operands(a, b, c);
  const CUtensorMap a_map = hopper::make_tile_map(a, hopper::tile_map_params(m, k, BM, BK));
  const CUtensorMap b_map = hopper::make_tile_map(b, hopper::tile_map_params(n, k, BN, BK));
  const int64_t tiles = int64_t(matmul::ceil_div(m, BM)) * matmul::ceil_div(n, BN);
  matmul::validate_grid(tiles);
  const size_t smem_bytes = sizeof(SharedStorage<T>) + hopper::swizzle_atom_bytes;  // + room to align the start
  hopper::prepare<matmul_kernel<T>>(THREADS, smem_bytes);  // the shared-memory allowance, once per device
  matmul_kernel<T><<<unsigned(tiles), THREADS, smem_bytes, stream>>>(a_map, b_map, c, m, n, k);
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
    "v1_tma",
    "TMA loads + WGMMA, one stage",
    matmul,
    matmul,
    {
        {"BM", BM},
        {"BN", BN},
        {"BK", BK},
        {"THREADS", THREADS},
    },
};

}  // namespace v1_tma
