// The Hopper vocabulary's host-side arithmetic, checked field by field against hand-worked values.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "common/hopper/descriptor.h"
#include "common/hopper/tensor_map.h"

using namespace hopper;
using Catch::Matchers::ContainsSubstring;

namespace {
uint64_t field(uint64_t desc, int low_bit, int bits) { return (desc >> low_bit) & ((uint64_t(1) << bits) - 1); }
}  // namespace

TEST_CASE("smem descriptor: each field where the PTX ISA puts it, in 16-byte units") {
  const uint64_t d = make_smem_descriptor(0x400);  // a tile 1 KiB into shared memory
  CHECK(field(d, 0, 14) == 0x40);  // start address 0x400 >> 4
  CHECK(field(d, 16, 14) == 1);  // leading-dimension offset: 16 bytes >> 4
  CHECK(field(d, 32, 14) == 64);  // stride-dimension offset: 1024 bytes >> 4
  CHECK(field(d, 49, 3) == 0);  // base offset: tiles are 1024-byte aligned
  CHECK(field(d, 62, 2) == 1);  // 128-byte swizzle
  CHECK(d == 0x4000004000010040ull);  // the whole word, worked by hand
  // Reserved bits stay zero.
  CHECK(field(d, 14, 2) == 0);
  CHECK(field(d, 30, 2) == 0);
  CHECK(field(d, 46, 3) == 0);
  CHECK(field(d, 52, 10) == 0);
}

TEST_CASE("smem descriptor: stepping along K moves the start address by 32 bytes per k16 slice") {
  const uint32_t tile = 0x8000;
  for (uint32_t kk = 0; kk < 4; ++kk)
    CHECK(field(make_smem_descriptor(tile + kk * 16 * 2), 0, 14) == (tile >> 4) + 2 * kk);
  // The address field holds 18 bits of address: the whole 228 KiB of a CTA's shared memory.
  CHECK(field(make_smem_descriptor(0x37C00), 0, 14) == 0x37C0);
}

TEST_CASE("tile map parameters for a K-major operand with a 128 x 64 box") {
  const TileMapParams p = tile_map_params(8192, 4096, 128, 64);
  CHECK(p.dims[0] == 4096);  // innermost (K) first
  CHECK(p.dims[1] == 8192);
  CHECK(p.row_pitch_bytes == 8192);
  CHECK(p.box[0] == 64);  // 64 elements = 128 bytes: one swizzled row
  CHECK(p.box[1] == 128);
  CHECK(p.box_bytes == 128 * 64 * 2);
  CHECK(p.swizzle == 128);
  CHECK(p.promote_l2);  // every rung's default; only v9's streamed operands turn it off
}

TEST_CASE("tile map parameters for a box of 64-byte rows take 64-byte swizzle") {
  const TileMapParams p = tile_map_params(512, 10240, 64, 32);  // v9's boxes of 32 columns of C
  CHECK(p.box[0] == 32);
  CHECK(p.box_bytes == 64 * 32 * 2);
  CHECK(p.swizzle == 64);
}

TEST_CASE("tile map parameters for ragged shapes keep the full box") {
  const TileMapParams p = tile_map_params(1, 8, 256, 64);  // TMA zero-fills what lies outside
  CHECK(p.dims[0] == 8);
  CHECK(p.dims[1] == 1);
  CHECK(p.row_pitch_bytes == 16);
  CHECK(p.box_bytes == 256 * 64 * 2);
}

TEST_CASE("tile map parameters refuse what TMA cannot do") {
  CHECK_THROWS_WITH(tile_map_params(128, 12, 128, 64),
                    ContainsSubstring("row pitch in bytes = 24 is invalid: must be a multiple of 16"));
  CHECK_THROWS_WITH(tile_map_params(128, 64, 128, 128),
                    ContainsSubstring("box row in bytes = 256 is invalid: must be 128 or 64"));
  CHECK_THROWS_WITH(tile_map_params(128, 64, 128, 48),
                    ContainsSubstring("box row in bytes = 96 is invalid: must be 128 or 64"));
  CHECK_THROWS_WITH(tile_map_params(128, 64, 128, 4),
                    ContainsSubstring("box row in bytes = 8 is invalid: must be 128 or 64"));
  CHECK_THROWS_WITH(tile_map_params(512, 64, 512, 64), ContainsSubstring("box rows = 512 is invalid"));
  CHECK_THROWS_WITH(tile_map_params(0, 64, 128, 64), ContainsSubstring("rows = 0 is invalid"));
}
