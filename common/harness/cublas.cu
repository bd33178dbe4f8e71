#include "common/harness/cublas.h"

#include <cublas_v2.h>

#include "common/check.h"
#include "common/problem.h"

namespace matmul {

namespace {

void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) throw_cuda_error(call, cublasGetStatusString(status), file, line);
}
#define CUBLAS_CHECK(call) check_cublas((call), #call, __FILE__, __LINE__)

// One handle for the process. Deliberately never destroyed: cublasDestroy during static
// destruction can run after the CUDA runtime has shut down.
cublasHandle_t handle() {
  static cublasHandle_t h = [] {
    cublasHandle_t created;
    CUBLAS_CHECK(cublasCreate(&created));
    return created;
  }();
  return h;
}

cudaDataType_t cuda_type(DType t) { return t == DType::fp16 ? CUDA_R_16F : CUDA_R_16BF; }

// Row-major C (m×n) = A·Bᵀ is column-major Cᵀ (n×m) = Bᵀ'·A' where A' and B' are the column-major
// k×m and k×n views of the same bytes: cuBLAS computes op(B')·op(A') with op(B') = B'ᵀ.
void gemm(DType t, const void* a, const void* b, void* c, cudaDataType_t c_type, int m, int n, int k,
          cudaStream_t stream) {
  validate_shape({m, n, k});
  validate_operands(a, b, c);
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasSetStream(handle(), stream));
  CUBLAS_CHECK(cublasGemmEx(handle(), CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, b, cuda_type(t), k, a, cuda_type(t), k,
                            &beta, c, c_type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

template <typename T>
void cublas_matmul(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream) {
  gemm(dtype_of<T>, a, b, c, cuda_type(dtype_of<T>), m, n, k, stream);
}

}  // namespace

void cublas_reference(DType t, const void* a, const void* b, float* c, int m, int n, int k, cudaStream_t stream) {
  gemm(t, a, b, c, CUDA_R_32F, m, n, k, stream);
}

const Version& cublas_version() {
  static const Version v{
      "cublas", "cuBLAS cublasGemmEx (the baseline)", cublas_matmul<__half>, cublas_matmul<__nv_bfloat16>, {}};
  return v;
}

}  // namespace matmul
