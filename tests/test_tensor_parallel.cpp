// v11_tensor_parallel: the rings' arithmetic (no GPU), refusals, and every form against one GPU's
// fp32 product of the whole layer: ragged M, N and K, both dtypes, outputs poisoned first, three
// calls in a row bit-identical, and a graph captured from each rank's stream replayed twice. On one
// GPU: NCCL with one rank, and the loopback group (two and three ranks on one GPU, storer form).
// With two GPUs or more, NCCL with two ranks as well. One thread per rank, as the API requires.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/check.h"
#include "common/harness/cublas.h"
#include "common/harness/device_buffer.h"
#include "common/harness/fill.h"
#include "common/harness/gpu.h"
#include "common/harness/verify.h"
#include "v11_tensor_parallel/tensor_parallel.h"

using namespace matmul;
namespace tp = v11_tensor_parallel;

// Before any CUDA call: no NVLink multicast (the rule of the machines this course runs on),
// hardware queues enough for the loopback group's streams, two a rank, never to share one (a
// semaphore's wait kernel holds up what is queued behind it), and every kernel loaded at start.
static const bool environment_set = [] {
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 1);
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);  // tensor_parallel.h: no kernel loads behind a waiting one
  return true;
}();

TEST_CASE("the rings visit every block once and pass each on to the next rank", "[tensor_parallel]") {
  for (int P = 1; P <= 8; ++P)
    for (int r = 0; r < P; ++r) {
      const int next = (r + 1) % P;
      std::set<int> received{r};  // column: this rank's own block, then one more a step
      for (int s = 1; s < P; ++s) {
        // What rank r sends at step s is what its next rank receives at step s, and it is what
        // rank r had: its own block at step 1, then the one it received at the step before.
        REQUIRE(tp::column_block_sent(r, s, P) == tp::column_block_received(next, s, P));
        REQUIRE(tp::column_block_sent(r, s, P) == (s == 1 ? r : tp::column_block_received(r, s - 1, P)));
        received.insert(tp::column_block_received(r, s, P));
      }
      REQUIRE(int(received.size()) == P);
      std::set<int> computed;  // row: every block's partial product once, its own last
      for (int s = 1; s <= P; ++s) {
        computed.insert(tp::row_block(r, s, P));
        // The sum rank r sends at step s is for the block the next rank computes at step s + 1.
        if (s < P) REQUIRE(tp::row_block(r, s, P) == tp::row_block(next, s + 1, P));
      }
      REQUIRE(int(computed.size()) == P);
      REQUIRE(tp::row_block(r, P, P) == r);
    }
}

namespace {

// Skipped, visibly, without a Hopper GPU (the tests of every other rung do the same, tests/gpu.h).
void require_hopper_or_skip() {
  try {
    require_hopper(query_device());
  } catch (const NoUsableGpu& e) {
    SKIP(e.what());
  }
}

std::vector<uint16_t> copy_to_host(const void* device, size_t count) {
  std::vector<uint16_t> bits(count);
  CUDA_CHECK(cudaMemcpy(bits.data(), device, count * 2, cudaMemcpyDeviceToHost));
  return bits;
}

// Runs body(rank) on one thread per rank, each with its rank's device current; returns each
// rank's exception message ("" when none). Catch's assertions stay on the calling thread.
std::vector<std::string> on_every_rank(tp::Group& group, const std::function<void(tp::Rank&)>& body) {
  std::vector<std::string> errors(group.ranks());
  std::vector<std::thread> threads;
  for (int r = 0; r < group.ranks(); ++r)
    threads.emplace_back([&, r] {
      try {
        CUDA_CHECK(cudaSetDevice(group.rank(r).device()));
        body(group.rank(r));
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  return errors;
}

constexpr int replays = 2;  // after the calls, a graph of the first one, on its inputs, replayed twice

// One call of a sequence: a layer in a form.
struct Call {
  tp::Form form;
  bool column;
};

// One call's inputs on one rank (column: its rows of x and its W_r; row: its x_r and W_r) and the
// fp32 value its y must have.
struct Inputs {
  DeviceBuffer x, w, ref;
};

// One rank's calls' inputs, what the calls read and write, and y as each call left it.
struct RankCase {
  std::vector<Inputs> runs;
  DeviceBuffer x, w, y;  // column-parallel's x is the rank's buffer instead
  std::vector<DeviceBuffer> outputs;
  cudaStream_t stream = nullptr;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
};

// `calls`, each on new inputs, queued back to back on every rank with no host wait between them;
// then a graph of the first call replayed twice. Each checked against the product of the whole
// layer, for m × n × k per rank (n: the rank's columns of y for column-parallel; k: the rank's
// columns of x for row-parallel). A block left over from the call before, or written into a
// neighbour's buffer before it had room, makes a wrong result.
void check_calls(tp::Group& group, const std::vector<Call>& calls, DType t, int m, int n, int k) {
  const int P = group.ranks(), part = m / P;
  const auto x_count = [&](const Call& c) { return size_t(c.column ? part : m) * k; };
  const auto y_count = [&](const Call& c) { return size_t(c.column ? m : part) * n; };
  std::vector<RankCase> cases(P);
  for (int r = 0; r < P; ++r) {
    CUDA_CHECK(cudaSetDevice(group.rank(r).device()));
    cases[r].x = DeviceBuffer(size_t(m) * k * 2);
    cases[r].w = DeviceBuffer(size_t(n) * k * 2);
    cases[r].y = DeviceBuffer(size_t(m) * n * 2);
    for (size_t i = 0; i < calls.size() + replays; ++i)
      cases[r].outputs.emplace_back(y_count(calls[i < calls.size() ? i : 0]) * 2);
    // The rows of x other than the rank's own are poison until gathered.
    fill_bits(group.rank(r).buffer(), size_t(m) * k, poison_bits);
  }
  // Each call's inputs, and its reference: the product of the whole layer on rank 0's device. Column:
  // X (m × k) times each rank's W_r; row: [X_0 … X_P−1] times [W_0 … W_P−1], rank r's rows of it.
  for (const Call& call : calls) {
    const int full_k = call.column ? k : k * P;
    const size_t xs = x_count(call), ys = y_count(call);
    CUDA_CHECK(cudaSetDevice(group.rank(0).device()));
    DeviceBuffer full_x(size_t(m) * full_k * 2), full_w(size_t(n) * full_k * 2), full_ref(size_t(m) * n * 4);
    fill_uniform(full_x.get(), size_t(m) * full_k, t, input_scale(full_k), fresh_seed());
    for (int r = 0; r < P; ++r) {
      CUDA_CHECK(cudaSetDevice(group.rank(r).device()));
      Inputs in{DeviceBuffer(xs * 2), DeviceBuffer(size_t(n) * k * 2), DeviceBuffer(ys * 4)};
      fill_uniform(in.w.get(), size_t(n) * k, t, input_scale(full_k), fresh_seed());
      if (call.column) {
        CUDA_CHECK(
            cudaMemcpy(in.x.get(), static_cast<char*>(full_x.get()) + size_t(r) * xs * 2, xs * 2, cudaMemcpyDefault));
        CUDA_CHECK(cudaMemcpy(full_w.get(), in.w.get(), size_t(n) * k * 2, cudaMemcpyDefault));
        CUDA_CHECK(cudaSetDevice(group.rank(0).device()));
        cublas_reference(t, full_x.get(), full_w.get(), static_cast<float*>(full_ref.get()), m, n, k);
        CUDA_CHECK(cudaMemcpy(in.ref.get(), full_ref.get(), ys * 4, cudaMemcpyDefault));
      } else {
        CUDA_CHECK(cudaMemcpy2D(in.x.get(), size_t(k) * 2, static_cast<char*>(full_x.get()) + size_t(r) * k * 2,
                                size_t(full_k) * 2, size_t(k) * 2, m, cudaMemcpyDefault));
        CUDA_CHECK(cudaMemcpy2D(static_cast<char*>(full_w.get()) + size_t(r) * k * 2, size_t(full_k) * 2, in.w.get(),
                                size_t(k) * 2, size_t(k) * 2, n, cudaMemcpyDefault));
      }
      cases[r].runs.push_back(std::move(in));
    }
    if (!call.column) {
      CUDA_CHECK(cudaSetDevice(group.rank(0).device()));
      cublas_reference(t, full_x.get(), full_w.get(), static_cast<float*>(full_ref.get()), m, n, full_k);
      for (int r = 0; r < P; ++r)
        CUDA_CHECK(cudaMemcpy(cases[r].runs.back().ref.get(), static_cast<float*>(full_ref.get()) + size_t(r) * ys,
                              ys * 4, cudaMemcpyDefault));
    }
  }
  for (int r = 0; r < P; ++r) {  // the ranks' streams do not wait for the default stream's work
    CUDA_CHECK(cudaSetDevice(group.rank(r).device()));
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  // Nothing in the threads waits for the whole device (no allocation, no free): in the loopback
  // group the other ranks' wait kernels may be running, waiting for this thread's next call.
  const std::vector<std::string> errors = on_every_rank(group, [&](tp::Rank& rank) {
    RankCase& c = cases[rank.index()];
    CUDA_CHECK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
    cudaStream_t stream = c.stream;
    const auto load = [&](size_t i) {  // call i's inputs where it reads them
      const Call& call = calls[i];
      void* x = call.column ? static_cast<char*>(rank.buffer()) + rank.index() * x_count(call) * 2 : c.x.get();
      CUDA_CHECK(cudaMemcpyAsync(x, c.runs[i].x.get(), x_count(call) * 2, cudaMemcpyDeviceToDevice, stream));
      CUDA_CHECK(cudaMemcpyAsync(c.w.get(), c.runs[i].w.get(), size_t(n) * k * 2, cudaMemcpyDeviceToDevice, stream));
    };
    const auto run = [&](size_t i) {
      const Call& call = calls[i];
      if (t == DType::fp16) {
        const auto* w = static_cast<const __half*>(c.w.get());
        auto* y = static_cast<__half*>(c.y.get());
        call.column ? tp::column_parallel(rank, call.form, w, y, m, n, k, stream)
                    : tp::row_parallel(rank, call.form, static_cast<const __half*>(c.x.get()), w, y, m, n, k, stream);
      } else {
        const auto* w = static_cast<const __nv_bfloat16*>(c.w.get());
        auto* y = static_cast<__nv_bfloat16*>(c.y.get());
        call.column
            ? tp::column_parallel(rank, call.form, w, y, m, n, k, stream)
            : tp::row_parallel(rank, call.form, static_cast<const __nv_bfloat16*>(c.x.get()), w, y, m, n, k, stream);
      }
    };
    const auto keep = [&](size_t out, const Call& call) {  // y as this call left it, then poison
      CUDA_CHECK(cudaMemcpyAsync(c.outputs[out].get(), c.y.get(), y_count(call) * 2, cudaMemcpyDeviceToDevice, stream));
      fill_bits(c.y.get(), size_t(m) * n, poison_bits, stream);
    };
    fill_bits(c.y.get(), size_t(m) * n, poison_bits, stream);
    for (size_t i = 0; i < calls.size(); ++i) {
      load(i);
      run(i);
      keep(i, calls[i]);
    }
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      load(0);
      run(0);
    } catch (...) {  // end the capture, so that the failure reported is this one, not the device's
      cudaStreamEndCapture(stream, &c.graph);
      throw;
    }
    CUDA_CHECK(cudaStreamEndCapture(stream, &c.graph));
    CUDA_CHECK(cudaGraphInstantiate(&c.exec, c.graph, 0));
    for (int i = 0; i < replays; ++i) {
      CUDA_CHECK(cudaGraphLaunch(c.exec, stream));
      keep(calls.size() + i, calls[0]);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
  });
  for (int r = 0; r < P; ++r) {
    RankCase& c = cases[r];
    CUDA_CHECK(cudaSetDevice(group.rank(r).device()));
    CUDA_CHECK(cudaDeviceSynchronize());  // a rank whose call threw may have left work queued
    if (c.exec) CUDA_CHECK(cudaGraphExecDestroy(c.exec));
    if (c.graph) CUDA_CHECK(cudaGraphDestroy(c.graph));
    if (c.stream) CUDA_CHECK(cudaStreamDestroy(c.stream));
    INFO(dtype_name(t) << ", rank " << r << " of " << P << ", m " << m << " n " << n << " k " << k);
    REQUIRE(errors[r] == "");
    for (size_t i = 0; i < calls.size() + replays; ++i) {
      const size_t inputs = i < calls.size() ? i : 0;
      const Call& call = calls[inputs];
      INFO("call " << i << ": " << tp::form_name(call.form) << (call.column ? " column" : " row") << "-parallel (from "
                   << calls.size() << " on: graph replays of call 0)");
      const Verification v = compare_to_reference(t, c.outputs[i].get(),
                                                  static_cast<const float*>(c.runs[inputs].ref.get()), y_count(call));
      REQUIRE(v.failure() == "");
      if (i >= calls.size())
        REQUIRE(copy_to_host(c.outputs[i].get(), y_count(call)) == copy_to_host(c.outputs[0].get(), y_count(call)));
    }
  }
}

// One layer in one form, three calls.
void check_layer(tp::Group& group, tp::Form form, bool column, DType t, int m, int n, int k) {
  check_calls(group, std::vector<Call>(3, Call{form, column}), t, m, n, k);
}

size_t buffer_for(int P, int m, int n, int k) {
  size_t bytes = tp::column_buffer_bytes(P, m, k);
  for (tp::Form f : {tp::Form::sequential, tp::Form::chunked, tp::Form::storer})
    bytes = std::max(bytes, tp::row_buffer_bytes(P, f, m, n));
  return bytes;
}

}  // namespace

TEST_CASE("the loopback group (ranks sharing one GPU), storer form, against one product", "[tensor_parallel]") {
  require_hopper_or_skip();
  const int P = GENERATE(2, 3);
  const DType t = GENERATE(DType::fp16, DType::bf16);
  // Ragged: M/P rows not a multiple of a tile, N and K not multiples of 64.
  const int m = P * 67, n = 200, k = 136;
  tp::Group group(std::vector<int>(P, 0), std::max({buffer_for(P, m, 203, k), buffer_for(P, P * 256, 512, 1024),
                                                    buffer_for(P, P * 512, 6144, 128)}));
  REQUIRE(group.loopback());
  check_layer(group, tp::Form::storer, true, t, m, n, k);
  check_layer(group, tp::Form::storer, false, t, m, n, k);
  check_layer(group, tp::Form::storer, false, t, m, 203, k);  // rows of y not 16-byte multiples
  check_layer(group, tp::Form::storer, true, t, P * 256, 512, 1024);  // whole tiles
  check_layer(group, tp::Form::storer, false, t, P * 256, 512, 1024);
  if (P == 2) {  // tiles of C, not of Cᵀ (wide192), stored into the neighbour's slot; N odd: no TMA store
    check_layer(group, tp::Form::storer, false, t, P * 512, 6144, 128);
    check_layer(group, tp::Form::storer, false, t, P * 512, 6143, 128);
  }
  // Layers alternating, with no host wait: a row call's slots overlap the column call's x.
  check_calls(group, {{tp::Form::storer, true}, {tp::Form::storer, false}, {tp::Form::storer, true}}, t, m, n, k);
}

TEST_CASE("NCCL groups (one rank, and two GPUs where there are two), every form", "[tensor_parallel]") {
  require_hopper_or_skip();
  int gpus = 0;
  CUDA_CHECK(cudaGetDeviceCount(&gpus));
  std::vector<std::vector<int>> groups{{0}};
  if (gpus >= 2) groups.push_back({0, 1});
  for (const auto& devices : groups) {
    const int P = int(devices.size());
    const int m = P * 67, n = 200, k = 136;
    tp::Group group(devices, buffer_for(P, m, n, k));
    REQUIRE_FALSE(group.loopback());
    const bool storer = group.rank(0).has_peer_access();
    for (DType t : {DType::fp16, DType::bf16}) {
      for (tp::Form f : {tp::Form::sequential, tp::Form::chunked, tp::Form::storer}) {
        if (f == tp::Form::storer && !storer) continue;
        check_layer(group, f, true, t, m, n, k);
        check_layer(group, f, false, t, m, n, k);
      }
      // Forms and layers mixed, with no host wait: each call's room covers the one before it.
      const tp::Form last = storer ? tp::Form::storer : tp::Form::chunked;
      check_calls(group,
                  {{tp::Form::sequential, true},
                   {last, false},
                   {tp::Form::chunked, true},
                   {last, true},
                   {tp::Form::sequential, false},
                   {last, false}},
                  t, m, n, k);
    }
  }
}

TEST_CASE("bad input is refused by name, nothing launched", "[tensor_parallel]") {
  require_hopper_or_skip();
  using Catch::Matchers::ContainsSubstring;
  REQUIRE_THROWS_WITH(tp::Group({}, 1024), ContainsSubstring("at least one device"));
  REQUIRE_THROWS_WITH(tp::Group({0, 999}, 1024), ContainsSubstring("device 999 does not exist"));
  int gpus = 0;
  CUDA_CHECK(cudaGetDeviceCount(&gpus));
  if (gpus >= 2) REQUIRE_THROWS_WITH(tp::Group({0, 1, 0}, 1024), ContainsSubstring("listed twice"));

  CUDA_CHECK(cudaSetDevice(0));
  tp::Group loopback({0, 0}, tp::column_buffer_bytes(2, 64, 64));
  tp::Rank& rank = loopback.rank(0);
  DeviceBuffer w(64 * 64 * 2), y(64 * 64 * 2), x(64 * 64 * 2);
  const auto* wp = static_cast<const __half*>(w.get());
  auto* yp = static_cast<__half*>(y.get());
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  fill_bits(y.get(), 64 * 64, poison_bits);
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE_THROWS_WITH(tp::column_parallel(rank, tp::Form::storer, wp, yp, 64, 64, 64, nullptr),
                      ContainsSubstring("give each rank a non-blocking stream of its own"));
  cudaStream_t blocking;
  CUDA_CHECK(cudaStreamCreate(&blocking));
  REQUIRE_THROWS_WITH(tp::column_parallel(rank, tp::Form::storer, wp, yp, 64, 64, 64, blocking),
                      ContainsSubstring("give each rank a non-blocking stream of its own"));
  CUDA_CHECK(cudaStreamDestroy(blocking));
  REQUIRE_THROWS_WITH(tp::column_parallel(rank, tp::Form::storer, wp, yp, 63, 64, 64, stream),
                      ContainsSubstring("M = 63 is not a multiple of the 2 ranks"));
  REQUIRE_THROWS_WITH(tp::column_parallel(rank, tp::Form::chunked, wp, yp, 64, 64, 64, stream),
                      ContainsSubstring("needs NCCL, and a loopback group has none"));
  REQUIRE_THROWS_WITH(tp::column_parallel(rank, tp::Form::storer, wp, yp, 128, 64, 64, stream),
                      ContainsSubstring("bytes of symmetric buffer"));
  REQUIRE_THROWS_WITH(tp::column_parallel(rank, tp::Form::storer, wp, yp, 2, 63, 64, stream),
                      ContainsSubstring("M/P × N = 1 × 63 elements, must be a multiple of 8"));
  REQUIRE_THROWS_WITH(tp::column_parallel(rank, tp::Form::storer, wp, yp, 64, 64, 12, stream),
                      ContainsSubstring("K must be a multiple of 8"));
  REQUIRE_THROWS_WITH(
      tp::row_parallel(rank, tp::Form::storer, static_cast<const __half*>(x.get()), wp, nullptr, 64, 64, 64, stream),
      ContainsSubstring("null"));
  if (gpus >= 2) {
    CUDA_CHECK(cudaSetDevice(1));
    REQUIRE_THROWS_WITH(tp::column_parallel(rank, tp::Form::storer, wp, yp, 64, 64, 64, stream),
                        ContainsSubstring("called with device 1 current, but the rank is on device 0"));
    CUDA_CHECK(cudaSetDevice(0));
  }
  // Nothing was launched: y, which every call given it would have written, still holds the poison.
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE(count_not_equal(y.get(), 64 * 64, poison_bits) == 0);
  CUDA_CHECK(cudaStreamDestroy(stream));
}
