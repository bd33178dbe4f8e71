// build/bin/v9_tilings [M,M,...] [iters] [N:K,N:K,...]: every tiling of v9's menu, and v9's own
// choice, against cuBLAS, by default on the linear layers of Llama-3 8B and 70B for M =
// 1,16,64,128,256,512, with 20 timed launches each: the measurements behind choose()'s rules
// (docs/v9_stream_k.md). Each shape's launches are timed in rounds, each launch between its own
// events, and L2 is flushed before each (the suite's L2Flush, timed apart and ignored): no launch
// reads the previous one's weights from L2. Every argument and shape is checked before the GPU is.
#include <cuda_runtime.h>

#include <cstdio>
#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/check.h"
#include "common/harness/bandwidth.h"
#include "common/harness/cli.h"
#include "common/harness/cublas.h"
#include "common/harness/device_buffer.h"
#include "common/harness/fill.h"
#include "common/harness/gpu.h"
#include "common/harness/stats.h"
#include "common/harness/timing.h"
#include "common/hopper/tile_queue.h"
#include "common/problem.h"
#include "v9_stream_k/matmul.h"

namespace {

using namespace matmul;
using v9_stream_k::menu;
using v9_stream_k::Tile;

// (N, K) of each layer, Llama-3 8B's then 70B's.
constexpr char llama_layers[] = "6144:4096,4096:4096,28672:4096,4096:14336,10240:8192,8192:8192,57344:8192,8192:28672";
constexpr char usage_line[] = "usage: v9_tilings [M,M,...] [iters] [N:K,N:K,...]  (defaults: 1,16,64,128,256,512 20 the "
                         "Llama-3 8B and 70B layers)";

// A whole number from `low` to `high`, or std::invalid_argument naming the argument, its text and the rule.
int number(const std::string& text, const char* what, long long low, long long high) {
  size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value < low || value > high)
    throw std::invalid_argument(std::string(what) + " '" + text + "': a whole number from " + std::to_string(low) +
                                " to " + std::to_string(high));
  return int(value);
}

// "1,16,64": each item a number; with `pairs`, "4096:4096,6144:4096": each item N:K, both numbers in turn.
std::vector<int> parse_list(const std::string& text, const char* what, bool pairs) {
  std::vector<int> values;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const size_t colon = item.find(':');
    if (pairs != (colon != std::string::npos))
      throw std::invalid_argument(std::string(what) + " '" + item + "': " + (pairs ? "N:K" : "a number, no ':'"));
    values.push_back(number(item.substr(0, colon), what, 1, (1LL << 31) - 1));
    if (pairs) values.push_back(number(item.substr(colon + 1), what, 1, (1LL << 31) - 1));
  }
  if (values.empty()) throw std::invalid_argument(std::string(what) + " '" + text + "': empty");
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> ms, layers;
  int iters = 0;
  try {
    if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
      std::printf("%s\n", usage_line);
      return exit_pass;
    }
    if (argc > 4) throw std::invalid_argument("at most three arguments, " + std::to_string(argc - 1) + " given");
    ms = parse_list(argc > 1 ? argv[1] : "1,16,64,128,256,512", "M", false);
    iters = number(argc > 2 ? argv[2] : "20", "iters", 1, 1000);
    layers = parse_list(argc > 3 ? argv[3] : llama_layers, "layer", true);
    for (int m : ms)
      for (size_t l = 0; l < layers.size(); l += 2) validate_shape({m, layers[l], layers[l + 1]});
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "v9_tilings: %s\n%s\n", e.what(), usage_line);
    return exit_bad_arguments;
  }
  try {
    require_hopper(query_device());
  } catch (const NoUsableGpu& e) {
    std::fprintf(stderr, "v9_tilings: %s\n", e.what());
    return exit_no_gpu;
  }
  const L2Flush flush;
  hopper::TileQueue queue;
  std::printf("%6s %6s %6s %10s", "M", "N", "K", "cuBLAS ms");
  for (Tile t : menu) std::printf(" %9s", v9_stream_k::name(t));
  std::printf("  %s\n", "choose (ratio to cuBLAS; > 1 is faster)");
  for (int m : ms)
    for (size_t l = 0; l < layers.size(); l += 2) {
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
      for (size_t i = 0; i < std::size(menu); ++i) std::printf(" %9.3f", cublas_ms / summarize(ms_of[3 + 2 * i]).median);
      std::printf("  %s\n", v9_stream_k::name(v9_stream_k::choose(m, n, k)));
    }
  return 0;
}
