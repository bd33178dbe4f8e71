#include "common/harness/cublas.h"

#include <cublas_v2.h>

#include <vector>

#include "common/check.h"
#include "common/problem.h"

namespace matmul {

namespace {

void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) throw_cuda_error(call, cublasGetStatusString(status), file, line);
}
#define CUBLAS_CHECK(call) check_cublas((call), #call, __FILE__, __LINE__)

// One handle per host thread and device, as cuBLAS asks: a handle's stream is set per call, so two
// threads sharing one would race between cublasSetStream and the GEMM, and a handle belongs to the
// device it was made on. Made on a thread's first call on a device, destroyed when the thread ends.
class Handles {
 public:
  ~Handles() {
    for (cublasHandle_t h : handles_)
      if (h != nullptr) cublasDestroy(h);
  }
  cublasHandle_t current() {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    if (size_t(device) >= handles_.size()) handles_.resize(size_t(device) + 1, nullptr);
    if (handles_[size_t(device)] == nullptr) CUBLAS_CHECK(cublasCreate(&handles_[size_t(device)]));
    return handles_[size_t(device)];
  }

 private:
  std::vector<cublasHandle_t> handles_;
};

cublasHandle_t handle() {
  thread_local Handles handles;
  return handles.current();
}

cudaDataType_t cuda_type(DType t) { return t == DType::fp16 ? CUDA_R_16F : CUDA_R_16BF; }

// Row-major C (m×n) = A·Bᵀ is column-major Cᵀ (n×m) = Bᵀ'·A' where A' and B' are the column-major
// k×m and k×n views of the same bytes: cuBLAS computes op(B')·op(A') with op(B') = B'ᵀ.
void gemm(DType t, const void* a, const void* b, void* c, cudaDataType_t c_type, int m, int n, int k,
          cudaStream_t stream) {
  validate_shape({m, n, k});
  validate_operands(a, b, c);
  const float alpha = 1.0f, beta = 0.0f;
  const cublasHandle_t h = handle();
  CUBLAS_CHECK(cublasSetStream(h, stream));
  CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, b, cuda_type(t), k, a, cuda_type(t), k, &beta,
                            c, c_type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
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
