// v11's GEMM: v9's kernel with the ring's sum fused into its epilogue (gemm.cu).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace v11_tensor_parallel {

// C = A·Bᵀ + R with A m × k, B n × k, C and R m × n, all row-major, fp32 accumulation; R = addend,
// or nothing when it is null. The tiling is v9's choose(m, n, k); whole tiles, no state.
void gemm(const __half* a, const __half* b, __half* c, const __half* addend, int m, int n, int k, cudaStream_t stream);
void gemm(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, const __nv_bfloat16* addend, int m, int n,
          int k, cudaStream_t stream);

}  // namespace v11_tensor_parallel
