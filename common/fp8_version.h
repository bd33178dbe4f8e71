// What the harness knows of an FP8 kernel (v10_fp8): C (bf16) = A·Bᵀ with A and B in e4m3 and one
// or more fp32 scale factors per operand. Apart from version.h's Version: the inputs, the output
// and the scales are not the 16-bit ladder's, and neither is the reference (cuBLASLt's FP8).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "common/hopper/tile_queue.h"
#include "common/version.h"

namespace matmul {

// Scale factors: the operand's real values are its e4m3 elements times these (docs/design.md, "FP8").
// The layouts are those cuBLASLt takes for its scalar and Hopper block modes:
//   tensor  scale_a[0], scale_b[0]
//   block   scale_a[kb · m + row]: one per row of A per 128 of K (kb = k / 128), rows contiguous;
//           scale_b[nb · scale_b_pitch(k) + kb]: one per 128 rows of B (nb = row / 128) per 128
//           of K, each block row padded to a multiple of 4 values.
enum class Scaling { tensor, block };

inline constexpr int scale_block = 128;  // K, and rows of B, per scale under block scaling
__host__ __device__ constexpr int64_t k_blocks(int64_t k) { return (k + scale_block - 1) / scale_block; }
__host__ __device__ constexpr int64_t scale_b_pitch(int64_t k) { return (k_blocks(k) + 3) / 4 * 4; }

inline const char* scaling_name(Scaling s) { return s == Scaling::tensor ? "tensor" : "block"; }

// An FP8 entry point; what scale_a and scale_b point to depends on the Scaling (the layouts above).
using Fp8MatmulFn = void (*)(const __nv_fp8_e4m3* a, const __nv_fp8_e4m3* b, __nv_bfloat16* c, int m, int n, int k,
                             const float* scale_a, const float* scale_b, cudaStream_t stream, hopper::TileQueue* queue);

struct Fp8Version {
  std::string name;
  std::string technique;
  Fp8MatmulFn tensor_scaled = nullptr;
  Fp8MatmulFn block_scaled = nullptr;
  std::vector<Param> config;

  Fp8MatmulFn entry(Scaling s) const { return s == Scaling::tensor ? tensor_scaled : block_scaled; }
};

}  // namespace matmul
