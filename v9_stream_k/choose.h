// v9's menu of tilings and the rules that pick one for a shape. Each rule is backed by a
// measurement on docs/v9_stream_k.md; `build/bin/v9_tilings` measures every tiling on a shape.
#pragma once

namespace v9_stream_k {

// The kernel computes D = P·Qᵀ in BM (128) × BN tiles with STAGES stages in its ring. SWAP: P is
// B and Q is A, so D = Cᵀ: N fills the tile's 128 rows and M only its BN columns.
template <int BN_, int STAGES_, bool SWAP_>
struct Tiling {
  static constexpr int BN = BN_;
  static constexpr int STAGES = STAGES_;
  static constexpr bool SWAP = SWAP_;
};

// [region:menu]
enum class Tile {
  wide,  // 128 × 256 of C, 4 stages: v8's tile, for M above 128
  swap128,  // 128 rows of N × 128 of M, 6 stages
  swap64,  // 128 rows of N × 64 of M, 8 stages
  swap16,  // 128 rows of N × 16 of M, 10 stages: M = 1 to 16 streams B
};
using Wide = Tiling<256, 4, false>;
using Swap128 = Tiling<128, 6, true>;
using Swap64 = Tiling<64, 8, true>;
using Swap16 = Tiling<16, 10, true>;
// [/region:menu]

// [region:choose]
// The tiling for C = A·Bᵀ with A m × k and B n × k.
constexpr Tile choose(int m, int /*n*/, int /*k*/) {
  if (m <= 16) return Tile::swap16;
  if (m <= 64) return Tile::swap64;
  if (m <= 128) return Tile::swap128;
  return Tile::wide;
}
// [/region:choose]

constexpr const char* name(Tile t) {
  switch (t) {
    case Tile::wide:
      return "wide";
    case Tile::swap128:
      return "swap128";
    case Tile::swap64:
      return "swap64";
    case Tile::swap16:
      return "swap16";
  }
  return "?";
}

}  // namespace v9_stream_k
