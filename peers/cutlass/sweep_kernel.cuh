// One configuration of the sweep: CUTLASS's kernel for it, run in whatever order sweep_order holds.
#pragma once
#include "peers/cutlass/gemm.cuh"
#include "peers/cutlass/sweep.h"

namespace cutlass_peers {

template <typename T, class C>
void run_in_sweep_order(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream) {
  run<T, C>(a, b, c, m, n, k, sweep_order, stream);
}

// Configuration C, in fp16, and in bf16 too WITH_BF16 (only then is its bf16 kernel compiled).
template <class C, bool WITH_BF16>
matmul::Version swept() {
  matmul::Version v = version<C>(run_in_sweep_order<__half, C>, nullptr);
  if constexpr (WITH_BF16) v.bf16 = run_in_sweep_order<__nv_bfloat16, C>;
  return v;
}

}  // namespace cutlass_peers
