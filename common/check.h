// Error checks: every CUDA runtime call goes through CUDA_CHECK, and a failure throws with the
// call, the file and the line. The CLI turns exceptions into one line and an exit code.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace matmul {

// A CUDA (or cuBLAS) call failed.
struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(const char* call, const char* what, const char* file, int line);

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(call, cudaGetErrorString(status), file, line);
}

}  // namespace matmul

#define CUDA_CHECK(call) ::matmul::check_cuda((call), #call, __FILE__, __LINE__)
