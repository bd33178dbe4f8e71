// The version's API: C (bf16) = A·Bᵀ scaled, with A m×k and B n×k in e4m3, C m×n, all row-major
// device pointers, fp32 accumulation. Throws std::invalid_argument (nothing launched) for an
// invalid problem: validate_shape's rules, K a multiple of 16, scale pointers non-null.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "common/fp8_version.h"

namespace v10_fp8 {

// Per-tensor scales: C = scale_a[0] · scale_b[0] · A·Bᵀ, both factors in device memory (as
// cuBLASLt takes them, so a graph replays with whatever they hold then). With `queue`, the CTAs
// draw their tiles from it (common/hopper/tile_queue.h); without one, a static stride.
void matmul(const __nv_fp8_e4m3* a, const __nv_fp8_e4m3* b, __nv_bfloat16* c, int m, int n, int k, const float* scale_a,
            const float* scale_b, cudaStream_t stream = nullptr, hopper::TileQueue* queue = nullptr);

// Block scales (DeepSeek-V3's recipe; layouts in common/fp8_version.h): scale_a holds one fp32 per
// row of A per 128 of K, scale_b one per 128 × 128 block of B. M must be a multiple of 4.
namespace block_scaled {
void matmul(const __nv_fp8_e4m3* a, const __nv_fp8_e4m3* b, __nv_bfloat16* c, int m, int n, int k, const float* scale_a,
            const float* scale_b, cudaStream_t stream = nullptr, hopper::TileQueue* queue = nullptr);
}  // namespace block_scaled

// For the harness and the FP8 ladder: both forms.
extern const matmul::Fp8Version version;

}  // namespace v10_fp8
