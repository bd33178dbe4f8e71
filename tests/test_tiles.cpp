#include <catch2/catch_test_macros.hpp>

#include "common/harness/gpu.h"
#include "common/tiles.h"

#include <array>
#include <vector>

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

TEST_CASE("grouped order visits every tile once, a group of rows column by column") {
  for (const auto [tiles_m, tiles_n, group] :
       {std::array{64, 43, 8}, std::array{7, 5, 3}, std::array{2, 9, 16}, std::array{129, 1, 8}, std::array{1, 1, 1}}) {
    std::vector<int> seen(size_t(tiles_m) * tiles_n, 0);
    for (int i = 0; i < tiles_m * tiles_n; ++i) {
      const TileCoord t = grouped_tile(i, tiles_m, tiles_n, group);
      REQUIRE(t.m >= 0);
      REQUIRE(t.m < tiles_m);
      REQUIRE(t.n >= 0);
      REQUIRE(t.n < tiles_n);
      ++seen[size_t(t.m) * tiles_n + t.n];
    }
    for (const int count : seen) REQUIRE(count == 1);
  }
  // 7 × 5 tiles in groups of 3 rows: down rows 0-2 of column 0, then of column 1, ...; the last
  // group holds the one row left.
  CHECK(grouped_tile(0, 7, 5, 3).m == 0);
  CHECK(grouped_tile(2, 7, 5, 3).m == 2);
  CHECK(grouped_tile(3, 7, 5, 3).n == 1);
  CHECK(grouped_tile(3, 7, 5, 3).m == 0);
  CHECK(grouped_tile(15, 7, 5, 3).m == 3);
  CHECK(grouped_tile(30, 7, 5, 3).m == 6);
  CHECK(grouped_tile(34, 7, 5, 3).n == 4);
  // group = 1 is row-by-row order.
  for (int i = 0; i < 35; ++i) {
    CHECK(grouped_tile(i, 7, 5, 1).m == i / 5);
    CHECK(grouped_tile(i, 7, 5, 1).n == i % 5);
  }
}

TEST_CASE("GPU names become file names") {
  CHECK(gpu_slug("NVIDIA H200") == "h200");
  CHECK(gpu_slug("NVIDIA H100 80GB HBM3") == "h100-80gb-hbm3");
  CHECK(gpu_slug("NVIDIA GH200 480GB") == "gh200-480gb");
  CHECK(gpu_slug("  ") == "gpu");
}
