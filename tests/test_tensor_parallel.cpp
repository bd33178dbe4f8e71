// v11_tensor_parallel: the rings' arithmetic (no GPU), refusals, and every form against one GPU's
// fp32 product of the whole layer: ragged M, N and K, both dtypes, outputs poisoned first, three
// calls in a row bit-identical, and a graph captured from each rank's stream replayed twice. On one
// GPU: NCCL with one rank, and the loopback group (two and three ranks on one GPU, storer form).
// With two GPUs or more, NCCL with two ranks as well. One thread per rank, as the API requires.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

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

// One rank's operands of a layer and its expected output (fp32), and the output after each run.
struct RankCase {
  DeviceBuffer x, w, y, ref;
  std::vector<std::vector<uint16_t>> outputs;  // y after each call
  std::vector<Verification> checks;
};

// The whole layer, checked: `column` or row-parallel, in `form`, for m × n × k per rank (n: the
// rank's columns of y for column-parallel; k: the rank's columns of x for row-parallel).
void check_layer(tp::Group& group, tp::Form form, bool column, DType t, int m, int n, int k) {
  const int P = group.ranks(), part = m / P;
  const size_t y_count = size_t(column ? m : part) * n;
  std::vector<RankCase> cases(P);
  // The full operands on rank 0's device: column: X (m × k) and each rank's W_r; row: X = [X_0 … X_P−1]
  // and W = [W_0 … W_P−1], each rank holding a column block of both.
  CUDA_CHECK(cudaSetDevice(group.rank(0).device()));
  const int full_k = column ? k : k * P;
  DeviceBuffer full_x(size_t(m) * full_k * 2), full_w(size_t(n) * full_k * 2), full_ref(size_t(m) * n * 4 * P);
  fill_uniform(full_x.get(), size_t(m) * full_k, t, input_scale(full_k), fresh_seed());
  for (int r = 0; r < P; ++r) {
    RankCase& c = cases[r];
    CUDA_CHECK(cudaSetDevice(group.rank(r).device()));
    c.x = DeviceBuffer(size_t(m) * k * 2);
    c.w = DeviceBuffer(size_t(n) * k * 2);
    c.y = DeviceBuffer(y_count * 2);
    c.ref = DeviceBuffer(y_count * 4);
    if (column) {
      fill_uniform(c.w.get(), size_t(n) * k, t, input_scale(k), fresh_seed());
      // Only this rank's rows of x are in its buffer; the others are poison until gathered.
      fill_bits(group.rank(r).buffer(), size_t(m) * k, poison_bits);
      CUDA_CHECK(cudaMemcpy(static_cast<char*>(group.rank(r).buffer()) + size_t(r) * part * k * 2,
                            static_cast<char*>(full_x.get()) + size_t(r) * part * k * 2, size_t(part) * k * 2,
                            cudaMemcpyDefault));
      CUDA_CHECK(cudaMemcpy(full_w.get(), c.w.get(), size_t(n) * k * 2, cudaMemcpyDefault));
      CUDA_CHECK(cudaSetDevice(group.rank(0).device()));
      cublas_reference(t, full_x.get(), full_w.get(), static_cast<float*>(full_ref.get()), m, n, k);
      CUDA_CHECK(cudaMemcpy(c.ref.get(), full_ref.get(), y_count * 4, cudaMemcpyDefault));
    } else {
      CUDA_CHECK(cudaMemcpy2D(c.x.get(), size_t(k) * 2, static_cast<char*>(full_x.get()) + size_t(r) * k * 2,
                              size_t(full_k) * 2, size_t(k) * 2, m, cudaMemcpyDefault));
      fill_uniform(c.w.get(), size_t(n) * k, t, input_scale(full_k), fresh_seed());
      CUDA_CHECK(cudaMemcpy2D(static_cast<char*>(full_w.get()) + size_t(r) * k * 2, size_t(full_k) * 2, c.w.get(),
                              size_t(k) * 2, size_t(k) * 2, n, cudaMemcpyDefault));
    }
  }
  if (!column) {  // every rank's rows of the one product of the whole layer
    CUDA_CHECK(cudaSetDevice(group.rank(0).device()));
    cublas_reference(t, full_x.get(), full_w.get(), static_cast<float*>(full_ref.get()), m, n, full_k);
    for (int r = 0; r < P; ++r)
      CUDA_CHECK(cudaMemcpy(cases[r].ref.get(), static_cast<float*>(full_ref.get()) + size_t(r) * part * n, y_count * 4,
                            cudaMemcpyDefault));
  }
  for (int r = 0; r < P; ++r) {  // the ranks' streams do not wait for the default stream's fills
    CUDA_CHECK(cudaSetDevice(group.rank(r).device()));
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  // Three calls, then a graph of one call replayed twice: each run into a freshly poisoned y.
  const std::vector<std::string> errors = on_every_rank(group, [&](tp::Rank& rank) {
    RankCase& c = cases[rank.index()];
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const auto call = [&](cudaStream_t s) {
      if (t == DType::fp16) {
        if (column)
          tp::column_parallel(rank, form, static_cast<const __half*>(c.w.get()), static_cast<__half*>(c.y.get()), m, n,
                              k, s);
        else
          tp::row_parallel(rank, form, static_cast<const __half*>(c.x.get()), static_cast<const __half*>(c.w.get()),
                           static_cast<__half*>(c.y.get()), m, n, k, s);
      } else {
        if (column)
          tp::column_parallel(rank, form, static_cast<const __nv_bfloat16*>(c.w.get()),
                              static_cast<__nv_bfloat16*>(c.y.get()), m, n, k, s);
        else
          tp::row_parallel(rank, form, static_cast<const __nv_bfloat16*>(c.x.get()),
                           static_cast<const __nv_bfloat16*>(c.w.get()), static_cast<__nv_bfloat16*>(c.y.get()), m, n,
                           k, s);
      }
    };
    const auto record = [&] {
      CUDA_CHECK(cudaStreamSynchronize(stream));
      c.outputs.push_back(copy_to_host(c.y.get(), y_count));
      c.checks.push_back(compare_to_reference(t, c.y.get(), static_cast<const float*>(c.ref.get()), y_count));
      fill_bits(c.y.get(), y_count, poison_bits, stream);
    };
    fill_bits(c.y.get(), y_count, poison_bits, stream);
    for (int i = 0; i < 3; ++i) {
      call(stream);
      record();
    }
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    call(stream);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 2; ++i) {
      CUDA_CHECK(cudaGraphLaunch(exec, stream));
      record();
    }
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaStreamDestroy(stream));
  });
  for (int r = 0; r < P; ++r) {
    INFO(tp::form_name(form) << (column ? " column" : " row") << "-parallel, " << dtype_name(t) << ", rank " << r
                             << " of " << P << ", m " << m << " n " << n << " k " << k);
    REQUIRE(errors[r] == "");
    REQUIRE(cases[r].checks.size() == 5);
    for (size_t i = 0; i < cases[r].checks.size(); ++i) {
      INFO("run " << i << " (3 and 4: graph replays)");
      REQUIRE(cases[r].checks[i].failure() == "");
      REQUIRE(cases[r].outputs[i] == cases[r].outputs[0]);
    }
  }
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
  tp::Group group(std::vector<int>(P, 0), buffer_for(P, m, n, k));
  REQUIRE(group.loopback());
  check_layer(group, tp::Form::storer, true, t, m, n, k);
  check_layer(group, tp::Form::storer, false, t, m, n, k);
  check_layer(group, tp::Form::storer, false, t, m, 203, k);  // rows of y not 16-byte multiples
  check_layer(group, tp::Form::storer, true, t, P * 256, 512, 1024);  // whole tiles
  check_layer(group, tp::Form::storer, false, t, P * 256, 512, 1024);
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
    for (DType t : {DType::fp16, DType::bf16})
      for (tp::Form f : {tp::Form::sequential, tp::Form::chunked, tp::Form::storer}) {
        if (f == tp::Form::storer && !group.rank(0).has_peer_access()) continue;
        check_layer(group, f, true, t, m, n, k);
        check_layer(group, f, false, t, m, n, k);
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
  REQUIRE_THROWS_WITH(tp::column_parallel(rank, tp::Form::storer, wp, yp, 63, 64, 64, nullptr),
                      ContainsSubstring("M = 63 is not a multiple of the 2 ranks"));
  REQUIRE_THROWS_WITH(tp::column_parallel(rank, tp::Form::chunked, wp, yp, 64, 64, 64, nullptr),
                      ContainsSubstring("needs NCCL, and a loopback group has none"));
  REQUIRE_THROWS_WITH(tp::column_parallel(rank, tp::Form::storer, wp, yp, 128, 64, 64, nullptr),
                      ContainsSubstring("bytes of symmetric buffer"));
  REQUIRE_THROWS_WITH(tp::column_parallel(rank, tp::Form::storer, wp, yp, 2, 63, 64, nullptr),
                      ContainsSubstring("M/P × N = 1 × 63 elements, must be a multiple of 8"));
  REQUIRE_THROWS_WITH(tp::column_parallel(rank, tp::Form::storer, wp, yp, 64, 64, 12, nullptr),
                      ContainsSubstring("K must be a multiple of 8"));
  REQUIRE_THROWS_WITH(
      tp::row_parallel(rank, tp::Form::storer, static_cast<const __half*>(x.get()), wp, nullptr, 64, 64, 64, nullptr),
      ContainsSubstring("null"));
  if (gpus >= 2) {
    CUDA_CHECK(cudaSetDevice(1));
    REQUIRE_THROWS_WITH(tp::column_parallel(rank, tp::Form::storer, wp, yp, 64, 64, 64, nullptr),
                        ContainsSubstring("called with device 1 current, but the rank is on device 0"));
    CUDA_CHECK(cudaSetDevice(0));
  }
}
