// cuBLAS on this project's problem: C = A·Bᵀ on row-major data, fp32 compute.
#pragma once
#include <cuda_runtime.h>

#include "common/dtype.h"
#include "common/version.h"

namespace matmul {

// The reference for verification: C in fp32, so that only a version's own rounding to T counts.
void cublas_reference(DType t, const void* a, const void* b, float* c, int m, int n, int k,
                      cudaStream_t stream = nullptr);

// The baseline every version is measured against: the same problem with C stored as T.
const Version& cublas_version();

}  // namespace matmul
