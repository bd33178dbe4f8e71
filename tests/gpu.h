// For GPU tests: skip (visibly, counted as skipped by CTest) when there is no Hopper GPU.
#pragma once
#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "common/check.h"
#include "common/harness/gpu.h"

inline void require_hopper_or_skip() {
  static const std::string unavailable = [] {
    try {
      matmul::require_hopper(matmul::query_device());
      return std::string();
    } catch (const matmul::NoUsableGpu& e) {
      return std::string(e.what());
    }
  }();
  if (!unavailable.empty()) SKIP(unavailable);
}

// The 16-bit words of `count` elements of device memory.
inline std::vector<uint16_t> copy_to_host(const void* device, size_t count) {
  std::vector<uint16_t> bits(count);
  CUDA_CHECK(cudaMemcpy(bits.data(), device, count * sizeof(uint16_t), cudaMemcpyDeviceToHost));
  return bits;
}
