// A call in a real program (docs/design.md, "A call with no hidden state"): every version and peer
// run from several host threads on cudaStreamPerThread at once, first called inside a stream
// capture, replayed from a graph on two streams beside eager calls, on a thousand short-lived
// streams, and on a second GPU. Each case runs the default call (no queue) and the queued form
// (a TileQueue the caller owns; versions below v5 and the peers ignore it), and checks every
// result against cuBLAS's fp32 reference, C poisoned before each run. Tagged [versions]: CTest
// runs them once per version (tests/CMakeLists.txt).
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/generators/catch_generators_range.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <memory>
#include <string>
#include <vector>

#include "common/harness/harness.h"
#include "common/hopper/tile_queue.h"
#include "gpu.h"

using namespace matmul;

namespace {

// A problem and its fp32 reference, made and checked on one stream.
struct Checked {
  Checked(Shape s, DType t, cudaStream_t stream) : x(s, t, stream), ref(x.c_count() * sizeof(float)), dtype(t) {
    new_reference(stream);
  }
  void new_reference(cudaStream_t stream) {
    cublas_reference(dtype, x.a.get(), x.b.get(), static_cast<float*>(ref.get()), int(x.shape.m), int(x.shape.n),
                     int(x.shape.k), stream);
  }
  void poison(cudaStream_t stream) { fill_bits(x.c.get(), x.c_count(), poison_bits, stream); }
  void run(const Version& v, cudaStream_t stream, hopper::TileQueue* queue) {
    v.run(dtype, x.a.get(), x.b.get(), x.c.get(), int(x.shape.m), int(x.shape.n), int(x.shape.k), stream, queue);
  }
  // C against the reference, once the work before on the caller's streams is done.
  Verification check() const {
    return compare_to_reference(dtype, x.c.get(), static_cast<const float*>(ref.get()), x.c_count());
  }
  Operands x;
  DeviceBuffer ref;
  DType dtype;
};

// The queue's counter as the device holds it: zero between launches.
int counter_value(const hopper::TileQueue& queue) {
  int value = -1;
  CUDA_CHECK(cudaMemcpy(&value, queue.counter(), sizeof(int), cudaMemcpyDeviceToHost));
  return value;
}

std::string describe(const Checked& c, const Verification& check) {
  return std::to_string(c.x.shape.m) + "x" + std::to_string(c.x.shape.n) + "x" + std::to_string(c.x.shape.k) + ": " +
         check.failure();
}

}  // namespace

TEST_CASE("four host threads on cudaStreamPerThread at once, five calls each, each result right", "[versions]") {
  require_hopper_or_skip();
  const Version* v = GENERATE(from_range(tested_versions()));
  const DType t = GENERATE(DType::fp16, DType::bf16);
  const bool queued = GENERATE(false, true);
  INFO(v->name << " " << dtype_name(t) << (queued ? ", each thread its own queue" : ", no queue"));
  // cudaStreamPerThread is one handle value, and a different stream in every thread: state looked
  // up by the handle would be shared by launches that run at once. More tiles than SMs each.
  constexpr int calls = 5;
  on_threads(4, [&](int i, std::vector<std::string>& failures) {
    const cudaStream_t stream = cudaStreamPerThread;
    std::unique_ptr<hopper::TileQueue> queue = queued ? std::make_unique<hopper::TileQueue>() : nullptr;
    Checked c({2048 + 128 * i, 2056 + 8 * i, 2048}, t, stream);
    for (int call = 0; call < calls; ++call) {
      c.poison(stream);
      if (not_implemented(*v, [&] { c.run(*v, stream, queue.get()); })) return;  // a peer's shape rule
      CUDA_CHECK(cudaStreamSynchronize(stream));
      const Verification check = c.check();
      if (!check.pass()) failures.push_back("call " + std::to_string(call) + ": " + describe(c, check));
    }
    if (queue && counter_value(*queue) != 0) failures.push_back("the queue's counter was left non-zero");
  });
}

TEST_CASE("the first call on a fresh stream may be inside a global-mode capture; the graph replays right",
          "[versions]") {
  require_hopper_or_skip();
  const Version* v = GENERATE(from_range(tested_versions()));
  const DType t = GENERATE(DType::fp16, DType::bf16);
  const bool queued = GENERATE(false, true);
  INFO(v->name << " " << dtype_name(t) << (queued ? ", a queue made before the capture" : ", no queue"));
  // Global mode: any call that may synchronize (cudaMalloc, a blocking memset) fails, from this
  // thread or another, and invalidates the capture.
  std::unique_ptr<hopper::TileQueue> queue = queued ? std::make_unique<hopper::TileQueue>() : nullptr;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  Checked c({1500, 2056, 520}, t, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  if (const auto why = not_implemented(*v, [&] { c.run(*v, stream, queue.get()); })) {
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaStreamDestroy(stream));
    SKIP(*why);
  }
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    c.x.new_inputs(t, stream);  // the graph reads whatever A and B hold when it runs
    c.new_reference(stream);
    c.poison(stream);
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const Verification check = c.check();
    INFO("replay " << replay << ": " << describe(c, check));
    CHECK(check.pass());
  }
  if (queue) CHECK(counter_value(*queue) == 0);
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST_CASE("one graph replayed on two streams beside eager calls on both, each result right", "[versions]") {
  require_hopper_or_skip();
  const Version* v = GENERATE(from_range(tested_versions()));
  const DType t = GENERATE(DType::fp16, DType::bf16);
  INFO(v->name << " " << dtype_name(t));
  // What the contract allows: a graph holding a queued call, replayed on either stream (launches of
  // one executable graph never overlap: CUDA orders them), and eager calls beside it on both
  // streams, one stream with no queue and the other with a queue of its own. What it forbids, two
  // launches that may overlap sharing one queue, is not done here: nothing could check it.
  cudaStream_t streams[2];
  for (cudaStream_t& s : streams) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  hopper::TileQueue graph_queue, eager_queue;
  Checked in_graph({2048, 2048, 1024}, t, streams[0]), eager_0({1000, 3000, 264}, t, streams[0]),
      eager_1({2304, 1504, 512}, t, streams[1]);
  CUDA_CHECK(cudaDeviceSynchronize());
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(streams[0], cudaStreamCaptureModeGlobal));
  if (const auto why = not_implemented(*v, [&] { in_graph.run(*v, streams[0], &graph_queue); })) {
    CUDA_CHECK(cudaStreamEndCapture(streams[0], &graph));
    CUDA_CHECK(cudaGraphDestroy(graph));
    for (cudaStream_t s : streams) CUDA_CHECK(cudaStreamDestroy(s));
    SKIP(*why);
  }
  CUDA_CHECK(cudaStreamEndCapture(streams[0], &graph));
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 3; ++round) {
    in_graph.poison(streams[0]);
    eager_0.poison(streams[0]);
    eager_1.poison(streams[1]);
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 2; ++i) {
      CUDA_CHECK(cudaGraphLaunch(exec, streams[i]));
      eager_0.run(*v, streams[0], nullptr);
      eager_1.run(*v, streams[1], &eager_queue);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    for (const Checked* c : {&in_graph, &eager_0, &eager_1}) {
      const Verification check = c->check();
      INFO("round " << round << ", " << describe(*c, check));
      CHECK(check.pass());
    }
  }
  CHECK(counter_value(graph_queue) == 0);
  CHECK(counter_value(eager_queue) == 0);
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  for (cudaStream_t s : streams) CUDA_CHECK(cudaStreamDestroy(s));
}

TEST_CASE("a thousand streams, each used once and destroyed, leave no device memory behind", "[versions]") {
  require_hopper_or_skip();
  const Version* v = GENERATE(from_range(tested_versions()));
  INFO(v->name);
  Checked c({256, 512, 64}, DType::fp16, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  if (const auto why = not_implemented(*v, [&] { c.run(*v, nullptr, nullptr); })) SKIP(*why);  // set up once
  CUDA_CHECK(cudaDeviceSynchronize());
  size_t free_before = 0, free_after = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_before, &total));
  for (int i = 0; i < 1000; ++i) {
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    c.run(*v, stream, nullptr);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaStreamDestroy(stream));
  }
  CUDA_CHECK(cudaMemGetInfo(&free_after, &total));
  const Verification check = c.check();
  INFO(describe(c, check));
  CHECK(check.pass());
  const double lost_mib = (double(free_before) - double(free_after)) / (1 << 20);
  INFO("device memory lost: " << lost_mib << " MiB");
  CHECK(lost_mib < 1.0);
}

TEST_CASE("the same call runs on a second GPU after the first, and a queue stays on its own device", "[versions]") {
  require_hopper_or_skip();
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (devices < 2) SKIP("one GPU here: the launch setup per device (common/hopper/launch.h) is not exercised");
  const Version* v = GENERATE(from_range(tested_versions()));
  INFO(v->name);
  for (int device = 0; device < 2; ++device) {
    CUDA_CHECK(cudaSetDevice(device));
    require_hopper(query_device());
    hopper::TileQueue queue;
    for (hopper::TileQueue* q : {static_cast<hopper::TileQueue*>(nullptr), &queue}) {
      Checked c({2048, 2048, 512}, DType::bf16, nullptr);
      if (const auto why = not_implemented(*v, [&] { c.run(*v, nullptr, q); })) {
        CUDA_CHECK(cudaSetDevice(0));
        SKIP(*why);
      }
      CUDA_CHECK(cudaDeviceSynchronize());
      const Verification check = c.check();
      INFO("device " << device << (q ? ", queued: " : ": ") << describe(c, check));
      CHECK(check.pass());
    }
  }
  CUDA_CHECK(cudaSetDevice(0));
  hopper::TileQueue on_0;
  CUDA_CHECK(cudaSetDevice(1));
  CHECK_THROWS_WITH(on_0.counter(),
                    Catch::Matchers::ContainsSubstring("made on device 0, passed to a launch on device 1"));
  CUDA_CHECK(cudaSetDevice(0));
}

TEST_CASE("a tile queue refuses use after a move, and keeps the device it was made on") {
  require_hopper_or_skip();
  hopper::TileQueue queue;
  int device = -1;
  CUDA_CHECK(cudaGetDevice(&device));
  CHECK(queue.device() == device);
  CHECK(counter_value(queue) == 0);
  hopper::TileQueue moved = std::move(queue);
  CHECK(moved.device() == device);
  CHECK(counter_value(moved) == 0);
  CHECK_THROWS_WITH(queue.counter(), Catch::Matchers::ContainsSubstring("moved from"));  // NOLINT: use after move
}

TEST_CASE("the harness's cuBLAS reference and baseline are right from eight threads at once") {
  require_hopper_or_skip();
  // One cuBLAS handle per thread and device: a shared one's stream is a race between threads.
  on_threads(8, [&](int i, std::vector<std::string>& failures) {
    cudaStream_t own;
    CUDA_CHECK(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
    for (const cudaStream_t stream : {cudaStreamPerThread, own}) {
      const DType t = i % 2 ? DType::bf16 : DType::fp16;
      Checked c({2048 + 64 * i, 2056, 2048}, t, stream);
      for (int call = 0; call < 5; ++call) {
        c.poison(stream);
        c.run(cublas_version(), stream, nullptr);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        const Verification check = c.check();
        if (!check.pass()) failures.push_back("call " + std::to_string(call) + ": " + describe(c, check));
      }
    }
    CUDA_CHECK(cudaStreamDestroy(own));
  });
}
