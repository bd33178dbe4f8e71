// What the harness knows of a version: its name, its technique in a few words, its two entry
// points and its tuning constants. Each version's kernel.cu defines one of these, and so does each
// peer (peers/).
#pragma once
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "common/dtype.h"

namespace matmul {

template <typename T>
using MatmulFn = void (*)(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream);

struct Param {
  std::string name;
  long value;
};

struct Version {
  std::string name;  // "v0_naive": the directory, the binary, the namespace
  std::string technique;  // what this step adds, for tables and plots
  MatmulFn<__half> fp16;
  MatmulFn<__nv_bfloat16> bf16;
  std::vector<Param> config;  // tile sizes, stages...: recorded with every result
  // Someone else's kernel measured beside the ladder (peers/: CUTLASS's), not a rung: results mark
  // its runs, the charts draw it as a reference line and the tables list it apart.
  bool peer = false;

  // Runs C = A·Bᵀ on untyped device buffers holding elements of type t.
  void run(DType t, const void* a, const void* b, void* c, int m, int n, int k, cudaStream_t stream) const {
    if (t == DType::fp16)
      fp16(static_cast<const __half*>(a), static_cast<const __half*>(b), static_cast<__half*>(c), m, n, k, stream);
    else
      bf16(static_cast<const __nv_bfloat16*>(a), static_cast<const __nv_bfloat16*>(b), static_cast<__nv_bfloat16*>(c),
           m, n, k, stream);
  }
};

}  // namespace matmul
