// v9's menu of tilings and the rules that pick one for a shape. Each rule is backed by a
// measurement on docs/v9_stream_k.md; `build/bin/v9_tilings` measures every tiling on a shape.
#pragma once
#include "common/tiles.h"

namespace v9_stream_k {

// The kernel computes D = P·Qᵀ in BM × BN tiles with STAGES stages in its ring, CONSUMERS
// warpgroups each computing BM / CONSUMERS of the rows. SWAP: P is B and Q is A, so D = Cᵀ: N fills
// the tile's rows and M only its BN columns. CLUSTER_M CTAs of a cluster share (multicast) the Q tile.
template <int BN_, int STAGES_, bool SWAP_, int CLUSTER_M_, int BM_ = 128, int CONSUMERS_ = 2>
struct Tiling {
  static constexpr int BN = BN_;
  static constexpr int STAGES = STAGES_;
  static constexpr bool SWAP = SWAP_;
  static constexpr int CLUSTER_M = CLUSTER_M_;
  static constexpr int BM = BM_;
  static constexpr int CONSUMERS = CONSUMERS_;
};

// [region:menu]
enum class Tile {
  wide,  // 128 × 256 of C, 4 stages, 2 × 1 clusters: v8's tile
  wide192,  // 128 × 192 of C, 4 stages, 2 × 1 clusters: N / 192 tiles where N / 256 leave a wave part-empty
  wide224,  // 128 × 224 of C, 4 stages, 2 × 1 clusters: N / 224 tiles where N / 256 leave stream-K a split wave
  wide160,  // 128 × 160 of C, 5 stages, 2 × 1 clusters: likewise, N / 160
  square,  // 128 × 128 of C, 6 stages, 2 × 1 clusters; chosen nowhere: swap128 measures faster
           // wherever it was (docs/v9_stream_k.md), kept for build/bin/v9_tilings to compare
  swap128,  // 128 rows of N × 128 of M, 6 stages, no cluster
  swap64,  // 128 rows of N × 64 of M, 8 stages, no cluster
  swap16,  // 128 rows of N × 16 of M, 6 stages, no cluster: M = 1 to 16 streams B, and more stages
           // than cover HBM's latency only queue there, unevenly (docs/v9_stream_k.md)
  // The swapped tiles again with 64 rows of N and one consumer: twice the units, so split-K needs
  // half the pieces.
  narrow128,  // 64 rows of N × 128 of M, 8 stages
  narrow64,  // 64 rows of N × 64 of M, 13 stages
  narrow16,  // 64 rows of N × 16 of M, 8 stages
};
// Every tiling of the menu, for the tools and tests that try them all.
constexpr Tile menu[] = {Tile::wide,   Tile::wide192, Tile::wide224, Tile::wide160,   Tile::square,   Tile::swap128,
                         Tile::swap64, Tile::swap16,  Tile::narrow128, Tile::narrow64, Tile::narrow16};
using Wide = Tiling<256, 4, false, 2>;
using Wide192 = Tiling<192, 4, false, 2>;
using Wide224 = Tiling<224, 4, false, 2>;
using Wide160 = Tiling<160, 5, false, 2>;
using Square = Tiling<128, 6, false, 2>;
using Swap128 = Tiling<128, 6, true, 1>;
using Swap64 = Tiling<64, 8, true, 1>;
using Swap16 = Tiling<16, 6, true, 1>;
using Narrow128 = Tiling<128, 8, true, 1, 64, 1>;
using Narrow64 = Tiling<64, 13, true, 1, 64, 1>;
using Narrow16 = Tiling<16, 8, true, 1, 64, 1>;
// [/region:menu]

// [region:choose]
// Wide tiles from 1.5 waves of a 132-SM GPU, or most of one with a long K; below, swap128's
// half-size tiles fill the waves better.
constexpr long WIDE_TILES = 200;
constexpr long WIDE_TILES_LONG_K = 100;
constexpr int LONG_K = 8192;
// Else the busiest of wide224 (K ≤ SHORT_K_224), wide192 and wide160 if busier than swap128 by
// BUSY_TIE; then, while swap128 has fewer tiles than SMs, narrow128 (twice the tiles, one consumer).
constexpr int SMS = 132;
constexpr double BUSY_TIE = 0.05;
using matmul::splits_last_wave;  // stream-K's rule for a last wave (common/tiles.h)
// Where stream-K would split wide's last wave: wide224 if its own stays whole (under six waves of
// SMS / 2 clusters, K ≤ SHORT_K_224); else, under two waves, wide160 if its stay whole.
constexpr long CLUSTERS = SMS / 2;
constexpr int SHORT_K_224 = 4096;
// A 2 × 1 cluster over an odd number of 128-row tiles idles a CTA of the last row: below ODD_ROWS
// rows, swap128, unless it makes under two waves and splits the last.
constexpr long ODD_ROWS = 15;

// Narrow (64-row) swapped tiles where 128-row ones would be at most 64: split-K needs half the pieces.
constexpr long NARROW_TILES = 64;

// Small and short (swap128 under one wave, K ≤ SHORT_K): the smallest tiles that make one wave;
// 16-column ones only for K ≤ SHORT_K_16 (an n16 WGMMA does an eighth of an n128's work a read).
constexpr int SHORT_K = 2048;
constexpr int SHORT_K_16 = 1024;

// The tiling for C = A·Bᵀ with A m × k and B n × k.
constexpr Tile choose(int m, int n, int k) {
  const long swap_rows = (n + 127) / 128, narrow_rows = (n + 63) / 64;  // rows of N in swapped, narrow tiles
  const bool narrow = swap_rows <= NARROW_TILES;  // M ≤ 128 is one column of swapped tiles
  if (m <= 16) return narrow ? Tile::narrow16 : Tile::swap16;
  if (m <= 64) return narrow ? Tile::narrow64 : Tile::swap64;
  if (m <= 128) return narrow ? Tile::narrow128 : Tile::swap128;
  const long rows = (m + 127) / 128;  // rows of M: 128 in the wide tilings, swap128 and narrow128
  const long swap128_tiles = rows * swap_rows;
  const bool clusters = rows % 2 == 0 || rows >= ODD_ROWS ||  // whether 2 × 1 clusters pay
                        (swap128_tiles < 2 * SMS && splits_last_wave(swap128_tiles, SMS));
  const long blocks = (rows + 1) / 2;  // rows of 2 × 1 clusters
  const long wide_tiles = rows * ((n + 255) / 256);
  if (clusters && (wide_tiles >= WIDE_TILES || (wide_tiles >= WIDE_TILES_LONG_K && k >= LONG_K))) {
    const long wide_units = blocks * ((n + 255) / 256);
    if (!splits_last_wave(wide_units, CLUSTERS)) return Tile::wide;
    if (wide_units < 6 * CLUSTERS && k <= SHORT_K_224 && !splits_last_wave(blocks * ((n + 223) / 224), CLUSTERS))
      return Tile::wide224;
    if (wide_units < 2 * CLUSTERS && !splits_last_wave(blocks * ((n + 159) / 160), CLUSTERS)) return Tile::wide160;
    return Tile::wide;
  }
  if (swap128_tiles < SMS && k <= SHORT_K) {
    if (k <= SHORT_K_16 && narrow_rows * ((m + 15) / 16) <= SMS) return Tile::narrow16;
    if (k <= SHORT_K_16 && swap_rows * ((m + 15) / 16) <= SMS) return Tile::swap16;
    if (narrow_rows * ((m + 63) / 64) <= SMS) return Tile::narrow64;
  }
  // Busy: C's area, M in whole 128-row tiles, over what `ctas` CTAs of 128 × `width` compute in
  // whole waves (N's padding, a cluster's idle CTA and a part-empty last wave count against it).
  const auto busy = [&](long ctas, int width) {
    return double(rows) * n / (double((ctas + SMS - 1) / SMS) * SMS * width);
  };
  const double swap128 = busy(swap128_tiles, 128);
  if (clusters) {
    struct Candidate {
      Tile tile;
      int width;
    };
    const Candidate candidates[] = {{Tile::wide224, 224}, {Tile::wide192, 192}, {Tile::wide160, 160}};
    Tile best = Tile::swap128;
    double most = swap128 + BUSY_TIE;
    for (const Candidate& c : candidates) {
      const double b = busy(blocks * 2 * ((n + c.width - 1) / c.width), c.width);
      if ((c.tile != Tile::wide224 || k <= SHORT_K_224) && b > most) best = c.tile, most = b;
    }
    if (best != Tile::swap128) return best;
  }
  if (swap128_tiles < SMS && busy(rows * narrow_rows, 64) > swap128 + BUSY_TIE) return Tile::narrow128;
  return Tile::swap128;
}
// [/region:choose]

constexpr const char* name(Tile t) {
  switch (t) {
    case Tile::wide:
      return "wide";
    case Tile::wide192:
      return "wide192";
    case Tile::wide224:
      return "wide224";
    case Tile::wide160:
      return "wide160";
    case Tile::square:
      return "square";
    case Tile::swap128:
      return "swap128";
    case Tile::swap64:
      return "swap64";
    case Tile::swap16:
      return "swap16";
    case Tile::narrow128:
      return "narrow128";
    case Tile::narrow64:
      return "narrow64";
    case Tile::narrow16:
      return "narrow16";
  }
  return "?";
}

}  // namespace v9_stream_k
