// For GPU tests: skip (visibly, counted as skipped by CTest) when there is no Hopper GPU.
#pragma once
#include <catch2/catch_test_macros.hpp>

#include <string>

#include "common/check.h"
#include "common/gpu.h"

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
