#include "common/check.h"

namespace matmul {

void throw_cuda_error(const char* call, const char* what, const char* file, int line) {
  throw CudaError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + what);
}

}  // namespace matmul
