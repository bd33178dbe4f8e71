// The version's API: C = A·Bᵀ with A m×k, B n×k, C m×n, all row-major device pointers,
// fp32 accumulation. Throws std::invalid_argument (nothing launched) for an invalid problem.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "common/version.h"
#include "v9_stream_k/choose.h"

namespace v9_stream_k {

// With `queue`, the faster form: stream-K, the split tiles' partials in the queue's scratch, whose
// contract common/hopper/tile_queue.h states. Without one, whole tiles on a static stride: the call
// keeps no state at all. The tiling is choose(m, n, k)'s.
void matmul(const __half* a, const __half* b, __half* c, int m, int n, int k, cudaStream_t stream = nullptr,
            hopper::TileQueue* queue = nullptr);
void matmul(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k,
            cudaStream_t stream = nullptr, hopper::TileQueue* queue = nullptr);

// The same with a given tiling, for the measurements behind choose() and for the tests.
void matmul(Tile tile, const __half* a, const __half* b, __half* c, int m, int n, int k, cudaStream_t stream,
            hopper::TileQueue* queue);
void matmul(Tile tile, const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k,
            cudaStream_t stream, hopper::TileQueue* queue);

// For the harness and the ladder.
extern const matmul::Version version;

}  // namespace v9_stream_k
