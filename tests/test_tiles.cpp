#include <catch2/catch_test_macros.hpp>

#include "common/gpu.h"
#include "common/tiles.h"

using namespace matmul;

TEST_CASE("ceil_div covers an extent with whole and partial tiles") {
  static_assert(ceil_div(128, 128) == 1);
  CHECK(ceil_div(1, 128) == 1);
  CHECK(ceil_div(129, 128) == 2);
  CHECK(ceil_div(8192, 32) == 256);
  CHECK(ceil_div(8193, 32) == 257);
  CHECK(ceil_div(int64_t(1) << 40, int64_t(64)) == int64_t(1) << 34);
  CHECK(ceil_div(2147483647, 128) == 16777216);  // the largest valid dimension, without overflow
  CHECK(ceil_div(2147483647, 64) == 33554432);
}

TEST_CASE("GPU names become file names") {
  CHECK(gpu_slug("NVIDIA H200") == "h200");
  CHECK(gpu_slug("NVIDIA H100 80GB HBM3") == "h100-80gb-hbm3");
  CHECK(gpu_slug("NVIDIA GH200 480GB") == "gh200-480gb");
  CHECK(gpu_slug("  ") == "gpu");
}
