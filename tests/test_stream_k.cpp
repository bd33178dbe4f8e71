// v9's own rules, beyond what every version is tested for: each tiling of its menu, forced, is
// right on ragged shapes with and without a queue, and again on new inputs; a split tile's fix-up
// adds the partials in a fixed order, so a rerun is bit-identical; the flags are all down after
// each checked launch; each tiling is right from four threads on cudaStreamPerThread at once and
// from a graph replayed on two streams; and choose() picks the tilings its page justifies.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/generators/catch_generators_range.hpp>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "common/harness/verify.h"
#include "common/hopper/tile_queue.h"
#include "gpu.h"
#include "v9_stream_k/matmul.h"

using namespace matmul;
using v9_stream_k::menu;
using v9_stream_k::Tile;

namespace {

void run(Tile tile, DType t, Operands& x, cudaStream_t stream, hopper::TileQueue* queue) {
  const int m = int(x.shape.m), n = int(x.shape.n), k = int(x.shape.k);
  if (t == DType::fp16)
    v9_stream_k::matmul(tile, static_cast<const __half*>(x.a.get()), static_cast<const __half*>(x.b.get()),
                        static_cast<__half*>(x.c.get()), m, n, k, stream, queue);
  else
    v9_stream_k::matmul(tile, static_cast<const __nv_bfloat16*>(x.a.get()),
                        static_cast<const __nv_bfloat16*>(x.b.get()), static_cast<__nv_bfloat16*>(x.c.get()), m, n,
                        k, stream, queue);
}

std::vector<int> flags_of(const hopper::TileQueue& queue) {
  std::vector<int> flags(size_t(queue.slots()) * hopper::TileQueue::flags_per_slot);
  CUDA_CHECK(cudaMemcpy(flags.data(), queue.flags(), flags.size() * sizeof(int), cudaMemcpyDeviceToHost));
  return flags;
}

}  // namespace

TEST_CASE("choose: swapped tiles up to M = 128, growing with M; above, wide tiles when they fill the GPU",
          "[stream_k]") {
  STATIC_REQUIRE(v9_stream_k::choose(1, 10240, 4096) == Tile::swap16);
  STATIC_REQUIRE(v9_stream_k::choose(16, 10240, 4096) == Tile::swap16);
  STATIC_REQUIRE(v9_stream_k::choose(17, 10240, 4096) == Tile::swap64);
  STATIC_REQUIRE(v9_stream_k::choose(64, 10240, 4096) == Tile::swap64);
  STATIC_REQUIRE(v9_stream_k::choose(128, 10240, 4096) == Tile::swap128);
  // Narrow (64-row) swapped tiles while the 128-row ones are at most 64 (N up to 8192).
  STATIC_REQUIRE(v9_stream_k::choose(1, 4096, 4096) == Tile::narrow16);
  STATIC_REQUIRE(v9_stream_k::choose(64, 8192, 4096) == Tile::narrow64);
  STATIC_REQUIRE(v9_stream_k::choose(128, 8193, 4096) == Tile::swap128);  // 65 tiles of 128 rows
  STATIC_REQUIRE(v9_stream_k::choose(128, 8192, 4096) == Tile::narrow128);
  STATIC_REQUIRE(v9_stream_k::choose(8192, 8192, 8192) == Tile::wide);
  // Above 128: the wide tile once it has 200 tiles (1.5 waves of 132 SMs), or 100 with K from 8192;
  // else swap128, unless the busiest of wide224 (K ≤ 4096), wide192 and wide160, or (below one wave
  // of swap128's) narrow128, is busier by 0.05: C's area over what the waves' CTAs could compute.
  // Busy values below: swap128's; then wide224's, wide192's, wide160's.
  STATIC_REQUIRE(v9_stream_k::choose(512, 4096, 4096) == Tile::swap128);  // 64 wide tiles, 128 swap128
  STATIC_REQUIRE(v9_stream_k::choose(512, 6144, 4096) == Tile::wide192);  // swap128 0.73, wide192 0.97
  STATIC_REQUIRE(v9_stream_k::choose(256, 10240, 8192) == Tile::wide160);  // 0.61; 0.69, 0.81, 0.97
  STATIC_REQUIRE(v9_stream_k::choose(256, 14336, 4096) == Tile::wide224);  // 0.85; 0.97, 0.57, 0.68
  STATIC_REQUIRE(v9_stream_k::choose(512, 7168, 4096) == Tile::wide224);  // 0.85; 0.97
  STATIC_REQUIRE(v9_stream_k::choose(256, 14336, 5120) == Tile::swap128);  // K over 4096: no wide224
  STATIC_REQUIRE(v9_stream_k::choose(360, 9472, 4096) == Tile::swap128);  // 0.84; 3 rows: wide160 0.67
  STATIC_REQUIRE(v9_stream_k::choose(1024, 6144, 4096) == Tile::swap128);  // 384 and 256: both full, a tie
  STATIC_REQUIRE(v9_stream_k::choose(256, 4096, 4096) == Tile::narrow128);  // 64 swap128, 128 narrow128
  STATIC_REQUIRE(v9_stream_k::choose(1024, 1024, 1024) == Tile::narrow128);  // 64, 128
  STATIC_REQUIRE(v9_stream_k::choose(768, 6144, 4096) == Tile::wide160);  // 0.73; 0.62, 0.73, 0.87
  STATIC_REQUIRE(v9_stream_k::choose(512, 6400, 4096) == Tile::wide224);  // K short for wide; 0.76; 0.87
  STATIC_REQUIRE(v9_stream_k::choose(512, 6400, 8192) == Tile::wide);  // 100 wide tiles, K long
  // Wide tiles under two waves whose last stream-K would split: wide160 where its own waves are whole.
  STATIC_REQUIRE(v9_stream_k::choose(512, 10240, 8192) == Tile::wide160);  // 80 units (14 in the last), 128 (62)
  STATIC_REQUIRE(v9_stream_k::choose(1024, 10240, 8192) == Tile::wide);  // 160 units: over two waves
  STATIC_REQUIRE(v9_stream_k::choose(512, 28672, 4096) == Tile::wide224);  // 224 units (26 in the last), 256 (58)
  STATIC_REQUIRE(v9_stream_k::choose(768, 28672, 4096) == Tile::wide224);  // 336 (6), 384 (54)
  STATIC_REQUIRE(v9_stream_k::choose(256, 57344, 8192) == Tile::wide);  // K 8192: no wide224
  STATIC_REQUIRE(v9_stream_k::choose(1024, 28672, 4096) == Tile::wide);  // wide224's last wave split too
  STATIC_REQUIRE(v9_stream_k::choose(512, 8192, 8192) == Tile::wide);  // 64 units: one whole wave
  // An odd number of 128-row tiles below 15: swap128, not a 2 x 1 cluster with an idle CTA, unless
  // swap128 makes under two waves and splits the last.
  STATIC_REQUIRE(v9_stream_k::choose(384, 10240, 8192) == Tile::swap128);  // 3 rows; 240 swap128 tiles (82%)
  STATIC_REQUIRE(v9_stream_k::choose(1664, 57344, 8192) == Tile::swap128);  // 13 rows
  STATIC_REQUIRE(v9_stream_k::choose(1920, 57344, 8192) == Tile::wide);  // 15 rows
  STATIC_REQUIRE(v9_stream_k::choose(896, 4096, 14336) == Tile::wide);  // 224 swap128 tiles (70% in the last)
  STATIC_REQUIRE(v9_stream_k::choose(384, 6144, 4096) == Tile::wide192);  // 144 swap128 tiles (9%)
  STATIC_REQUIRE(v9_stream_k::choose(1024, 6400, 4096) == Tile::wide);  // 200
  STATIC_REQUIRE(v9_stream_k::choose(2048, 2048, 2048) == Tile::swap128);  // 128, K short
  STATIC_REQUIRE(v9_stream_k::choose(2048, 4096, 4096) == Tile::wide);
  // Small and short: the most tiles that fit one wave (16-column ones only where K <= 1024).
  STATIC_REQUIRE(v9_stream_k::choose(256, 512, 512) == Tile::narrow16);  // 128 tiles
  STATIC_REQUIRE(v9_stream_k::choose(512, 512, 512) == Tile::swap16);  // 128; narrow16 256
  STATIC_REQUIRE(v9_stream_k::choose(512, 1024, 1024) == Tile::narrow64);  // 128; swap16 256
  STATIC_REQUIRE(v9_stream_k::choose(512, 512, 2048) == Tile::narrow64);  // swap16's 128 not asked: K 2048
  STATIC_REQUIRE(v9_stream_k::choose(768, 1024, 1024) == Tile::narrow128);  // narrow64 192
  STATIC_REQUIRE(v9_stream_k::choose(512, 512, 4096) == Tile::narrow128);  // K too long for the rule
}

TEST_CASE("every tiling of v9's menu, forced, is right on ragged shapes; split tiles rerun bit-identical",
          "[stream_k]") {
  require_hopper_or_skip();
  const Tile tile = GENERATE(from_range(std::begin(menu), std::end(menu)));
  const DType t = GENERATE(DType::fp16, DType::bf16);
  // Few units with long K (every cluster shares a few tiles), one ragged unit, more units than
  // clusters with a ragged last wave, K of one step, and N not a multiple of 8 (no TMA store).
  const Shape s = GENERATE(Shape{1, 1000, 4104}, Shape{16, 4096, 4096}, Shape{37, 333, 1000}, Shape{100, 520, 2048},
                           Shape{300, 1000, 3000}, Shape{1000, 2100, 520}, Shape{129, 4096, 8}, Shape{70, 999, 640});
  INFO(v9_stream_k::name(tile) << " " << dtype_name(t) << " " << s.m << "x" << s.n << "x" << s.k);
  hopper::TileQueue queue;
  Operands x(s, t);
  DeviceBuffer ref(x.c_count() * sizeof(float));
  cublas_reference(t, x.a.get(), x.b.get(), static_cast<float*>(ref.get()), int(s.m), int(s.n), int(s.k), nullptr);
  const auto checked = [&] {
    CUDA_CHECK(cudaDeviceSynchronize());
    const Verification check = compare_to_reference(t, x.c.get(), static_cast<const float*>(ref.get()), x.c_count());
    INFO(check.failure());
    CHECK(check.pass());
    for (int flag : flags_of(queue)) CHECK(flag == 0);  // every flag lowered by the launch that raised it
  };
  for (hopper::TileQueue* q : {static_cast<hopper::TileQueue*>(nullptr), &queue}) {
    INFO((q ? "stream-K, with a queue" : "whole tiles, no queue"));
    fill_bits(x.c.get(), x.c_count(), poison_bits);
    run(tile, t, x, nullptr, q);
    checked();
    // A rerun into a poisoned C gives the same bits: the fix-up's order does not depend on timing.
    CUDA_CHECK(cudaMemcpy(x.first.get(), x.c.get(), x.c.bytes(), cudaMemcpyDeviceToDevice));
    for (int rerun = 0; rerun < 3; ++rerun) {
      fill_bits(x.c.get(), x.c_count(), poison_bits);
      run(tile, t, x, nullptr, q);
      CHECK(count_differences(x.first.get(), x.c.get(), x.c_count()) == 0);
    }
    // New inputs: a partial left from the launch before, read for this one, would now be wrong.
    x.new_inputs(t);
    cublas_reference(t, x.a.get(), x.b.get(), static_cast<float*>(ref.get()), int(s.m), int(s.n), int(s.k), nullptr);
    fill_bits(x.c.get(), x.c_count(), poison_bits);
    run(tile, t, x, nullptr, q);
    checked();
  }
}

TEST_CASE("every tiling of v9's menu, forced, from four threads on cudaStreamPerThread and from a graph on two streams",
          "[stream_k]") {
  require_hopper_or_skip();
  const Tile tile = GENERATE(from_range(std::begin(menu), std::end(menu)));
  const DType t = GENERATE(DType::fp16, DType::bf16);
  INFO(v9_stream_k::name(tile) << " " << dtype_name(t));
  // Shapes that every tiling splits with a queue (few tiles, long K): the partials and flags live in
  // the queue, so two launches at once with different queues must not meet, and without one none.
  const auto reference = [&](const Operands& x, cudaStream_t stream) {
    DeviceBuffer ref(x.c_count() * sizeof(float));
    cublas_reference(t, x.a.get(), x.b.get(), static_cast<float*>(ref.get()), int(x.shape.m), int(x.shape.n),
                     int(x.shape.k), stream);
    return ref;
  };
  const auto check = [&](const Operands& x, const DeviceBuffer& ref) {
    return compare_to_reference(t, x.c.get(), static_cast<const float*>(ref.get()), x.c_count());
  };
  on_threads(4, [&](int i, std::vector<std::string>& failures) {
    const cudaStream_t stream = cudaStreamPerThread;
    std::unique_ptr<hopper::TileQueue> queue = i < 2 ? std::make_unique<hopper::TileQueue>() : nullptr;
    Operands x({300 + 8 * i, 1000 + 8 * i, 3000}, t, stream);
    const DeviceBuffer ref = reference(x, stream);
    for (int call = 0; call < 3; ++call) {
      fill_bits(x.c.get(), x.c_count(), poison_bits, stream);
      run(tile, t, x, stream, queue.get());
      CUDA_CHECK(cudaStreamSynchronize(stream));
      const Verification result = check(x, ref);
      if (!result.pass()) failures.push_back("call " + std::to_string(call) + ": " + result.failure());
    }
    if (!queue) return;
    const std::vector<int> flags = flags_of(*queue);
    if (std::any_of(flags.begin(), flags.end(), [](int flag) { return flag != 0; }))
      failures.push_back("a flag of the thread's queue was left raised");
  });
  // A queued call captured once, replayed on either stream in turn, with new inputs each time.
  cudaStream_t streams[2];
  for (cudaStream_t& s : streams) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  hopper::TileQueue queue;
  Operands x({260, 1000, 2056}, t, streams[0]);
  CUDA_CHECK(cudaStreamSynchronize(streams[0]));
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(streams[0], cudaStreamCaptureModeGlobal));
  run(tile, t, x, streams[0], &queue);
  CUDA_CHECK(cudaStreamEndCapture(streams[0], &graph));
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 4; ++replay) {
    const cudaStream_t stream = streams[replay % 2];
    x.new_inputs(t, stream);
    const DeviceBuffer ref = reference(x, stream);
    fill_bits(x.c.get(), x.c_count(), poison_bits, stream);
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const Verification result = check(x, ref);
    INFO("replay " << replay << ": " << result.failure());
    CHECK(result.pass());
  }
  for (int flag : flags_of(queue)) CHECK(flag == 0);
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  for (cudaStream_t s : streams) CUDA_CHECK(cudaStreamDestroy(s));
}
