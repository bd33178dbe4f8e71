// build/bin/v9_tilings [M,M,...] [iters] [N:K,N:K,...]: every tiling of v9's menu, and v9's own
// choice, against cuBLAS, by default on the linear layers of Llama-3 8B and 70B for M =
// 1,16,64,128,256,512, with 20 timed launches each. The
// measurements behind choose()'s rules (docs/v9_stream_k.md). Each shape's launches are timed in
// rounds, each launch between its own events, and L2 is flushed before each (the suite's
// L2Flush, timed apart and ignored): no launch reads the previous one's weights from L2.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "common/check.h"
#include "common/harness/bandwidth.h"
#include "common/harness/cublas.h"
#include "common/harness/device_buffer.h"
#include "common/harness/fill.h"
#include "common/harness/stats.h"
#include "common/harness/timing.h"
#include "common/hopper/tile_queue.h"
#include "v9_stream_k/matmul.h"

namespace {

using namespace matmul;
using v9_stream_k::Tile;

constexpr Tile menu[] = {Tile::wide, Tile::square, Tile::swap128, Tile::swap64, Tile::swap16};
// (N, K) of each layer, Llama-3 8B's then 70B's.
constexpr char llama_layers[] = "6144:4096,4096:4096,28672:4096,4096:14336,10240:8192,8192:8192,57344:8192,8192:28672";

// "1,16,64" or, with pairs, "4096:4096,6144:4096" (each pair's two numbers in turn).
std::vector<int> parse_list(const char* text) {
  std::vector<int> values;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const size_t colon = item.find(':');
    values.push_back(std::atoi(item.substr(0, colon).c_str()));
    if (colon != std::string::npos) values.push_back(std::atoi(item.substr(colon + 1).c_str()));
  }
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<int> ms = parse_list(argc > 1 ? argv[1] : "1,16,64,128,256,512");
  const int iters = argc > 2 ? std::atoi(argv[2]) : 20;
  const std::vector<int> layers = parse_list(argc > 3 ? argv[3] : llama_layers);
  const L2Flush flush;
  hopper::TileQueue queue;
  std::printf("%6s %6s %6s %10s", "M", "N", "K", "cuBLAS ms");
  for (Tile t : menu) std::printf(" %8s", v9_stream_k::name(t));
  std::printf("  %s\n", "choose (ratio to cuBLAS; > 1 is faster)");
  for (int m : ms)
    for (size_t l = 0; l + 1 < layers.size(); l += 2) {
      const int n = layers[l], k = layers[l + 1];
      DeviceBuffer a(size_t(m) * k * 2), b(size_t(n) * k * 2), c(size_t(m) * n * 2);
      fill_uniform(a.get(), size_t(m) * k, DType::fp16, input_scale(k), fresh_seed());
      fill_uniform(b.get(), size_t(n) * k, DType::fp16, input_scale(k), fresh_seed());
      const auto* pa = static_cast<const __half*>(a.get());
      const auto* pb = static_cast<const __half*>(b.get());
      auto* pc = static_cast<__half*>(c.get());
      const Launch flush_l2 = [&](cudaStream_t s) { flush(s); };
      std::vector<Launch> launches = {flush_l2, [&](cudaStream_t s) {
                                        cublas_version().run(DType::fp16, pa, pb, pc, m, n, k, s);
                                      }};
      for (Tile t : menu) {
        launches.push_back(flush_l2);
        launches.push_back([&, t](cudaStream_t s) { v9_stream_k::matmul(t, pa, pb, pc, m, n, k, s, &queue); });
      }
      warm_up(launches, 3);
      const Samples ms_of = time_rounds(launches, iters);
      const double cublas_ms = summarize(ms_of[1]).median;
      std::printf("%6d %6d %6d %10.4f", m, n, k, cublas_ms);
      for (size_t i = 0; i < std::size(menu); ++i) std::printf(" %8.3f", cublas_ms / summarize(ms_of[3 + 2 * i]).median);
      std::printf("  %s\n", v9_stream_k::name(v9_stream_k::choose(m, n, k)));
    }
  return 0;
}
