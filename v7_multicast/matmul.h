// The version's API: C = A·Bᵀ with A m×k, B n×k, C m×n, all row-major device pointers,
// fp32 accumulation. Throws std::invalid_argument (nothing launched) for an invalid problem.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "common/version.h"

namespace v7_multicast {

// With `queue`, the faster form: the CTAs draw their tiles from the caller's queue, whose contract
// common/hopper/tile_queue.h states. Without one, a static stride: the call keeps no state at all.
void matmul(const __half* a, const __half* b, __half* c, int m, int n, int k, cudaStream_t stream = nullptr,
            hopper::TileQueue* queue = nullptr);
void matmul(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k,
            cudaStream_t stream = nullptr, hopper::TileQueue* queue = nullptr);

// For the harness and the ladder.
extern const matmul::Version version;

// The same with ping-pong consumers (pingpong.cu): its own binary, v7_multicast_pingpong, which runs
// wherever a version runs.
namespace pingpong {
void matmul(const __half* a, const __half* b, __half* c, int m, int n, int k, cudaStream_t stream = nullptr,
            hopper::TileQueue* queue = nullptr);
void matmul(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k,
            cudaStream_t stream = nullptr, hopper::TileQueue* queue = nullptr);
extern const matmul::Version version;
}  // namespace pingpong

}  // namespace v7_multicast
