// NCCL_CHECK: a failed NCCL call throws, like CUDA_CHECK, naming the call, the file and the line.
#pragma once
#include <nccl.h>

#include <stdexcept>
#include <string>

#define NCCL_CHECK(call)                                                                                              \
  do {                                                                                                                \
    const ncclResult_t nccl_status = (call);                                                                          \
    if (nccl_status != ncclSuccess)                                                                                   \
      throw std::runtime_error(std::string(#call) + " failed: " + ncclGetErrorString(nccl_status) + " (" + __FILE__ + \
                               ":" + std::to_string(__LINE__) + ")");                                                 \
  } while (0)
