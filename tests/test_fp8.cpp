// v10_fp8 on the GPU: both scalings against the fp64 reference of the dequantized inputs on ragged
// shapes, C poisoned before each run and bit-identical on a rerun; the scales read when the kernel
// runs (a graph replays with new ones); calls from several threads on cudaStreamPerThread at once,
// with and without a queue each; and the check itself able to fail.
#include <catch2/catch_test_macros.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/check.h"
#include "common/harness/fill.h"
#include "common/harness/fp8.h"
#include "gpu.h"
#include "v10_fp8/matmul.h"

using namespace matmul;

namespace {

void run(const Fp8Problem& p, cudaStream_t stream = nullptr, hopper::TileQueue* queue = nullptr) {
  const Shape s = p.shape();
  v10_fp8::version.entry(p.scaling())(p.a(), p.b(), p.c(), int(s.m), int(s.n), int(s.k), p.scale_a(), p.scale_b(),
                                      stream, queue);
}

std::vector<uint16_t> c_bits(const Fp8Problem& p) {
  CUDA_CHECK(cudaDeviceSynchronize());
  return copy_to_host(p.c(), size_t(p.shape().m * p.shape().n));
}

// Every scale of A times `factor`, in place: each product, so C, times `factor`.
void scale_a_by(Fp8Problem& p, float factor) {
  std::vector<float> host(static_cast<size_t>(scale_a_count(p.scaling(), p.shape())));
  CUDA_CHECK(cudaMemcpy(host.data(), p.scale_a(), host.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (float& x : host) x *= factor;
  CUDA_CHECK(
      cudaMemcpy(const_cast<float*>(p.scale_a()), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
}

}  // namespace

TEST_CASE("v10_fp8 matches the fp64 reference on ragged shapes, each scaling, and reruns bit for bit", "[fp8]") {
  require_hopper_or_skip();
  // M a multiple of 4 for block scales; N odd (C stored element by element), not a multiple of the
  // tile, or a multiple of 8 (the TMA store); K down to 16 and one K-step short of a multiple of 128.
  const std::vector<Shape> shapes{{4, 77, 16},      {132, 300, 208}, {1000, 1000, 1040}, {256, 512, 128},
                                  {128, 264, 4096}, {8, 200, 4096},  {260, 520, 2032},   {1, 24, 48}};
  for (Scaling scaling : {Scaling::tensor, Scaling::block})
    for (const Shape& s : shapes) {
      if (scaling == Scaling::block && s.m % 4 != 0) continue;
      INFO(scaling_name(scaling) << " " << s.m << "x" << s.n << "x" << s.k);
      Fp8Problem p(s, scaling);
      p.new_inputs(fresh_seed(), 2, scaling == Scaling::block ? 3 : 0);
      p.compute_reference(1);
      p.poison_c();
      run(p);
      const Fp8Problem::Error e = p.compare();
      CHECK(e.unwritten == 0);
      CHECK(e.nonfinite == 0);
      CHECK(e.rel_err <= fp8_tolerance(scaling));
      const std::vector<uint16_t> first = c_bits(p);
      p.poison_c();
      run(p);
      CHECK(c_bits(p) == first);
    }
}

TEST_CASE("v10_fp8 reads its scales when it runs: doubled scales double C, also in a graph replay", "[fp8]") {
  require_hopper_or_skip();
  for (Scaling scaling : {Scaling::tensor, Scaling::block}) {
    INFO(scaling_name(scaling));
    Fp8Problem p({256, 384, 512}, scaling);
    p.new_inputs(fresh_seed(), 1);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t graph;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    run(p, stream);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    run(p);
    const std::vector<uint16_t> eager = c_bits(p);
    p.poison_c();
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CHECK(c_bits(p) == eager);  // the replay is the eager call
    scale_a_by(p, 2.0f);  // a power of two: every product and sum doubles exactly
    p.poison_c();
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::vector<uint16_t> doubled = c_bits(p);
    int64_t wrong = 0;
    for (size_t i = 0; i < eager.size(); ++i) {
      __nv_bfloat16 x, y;
      std::memcpy(&x, &eager[i], 2);
      std::memcpy(&y, &doubled[i], 2);
      wrong += __bfloat162float(y) != 2.0f * __bfloat162float(x);
    }
    CHECK(wrong == 0);
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaStreamDestroy(stream));
  }
}

TEST_CASE("v10_fp8 from four threads at once on cudaStreamPerThread, each with or without its own queue", "[fp8]") {
  require_hopper_or_skip();
  constexpr int threads = 4;
  std::vector<std::unique_ptr<Fp8Problem>> problems;
  for (int t = 0; t < threads; ++t) {  // made here: the reference synchronizes the device
    problems.push_back(
        std::make_unique<Fp8Problem>(Shape{260, 1000 + 8 * t, 1040}, t % 2 ? Scaling::block : Scaling::tensor));
    problems.back()->new_inputs(fresh_seed(), 2);
    problems.back()->compute_reference(1);
  }
  on_threads(threads, [&](int t, std::vector<std::string>& failures) {
    Fp8Problem& p = *problems[size_t(t)];
    std::unique_ptr<hopper::TileQueue> queue = t < 2 ? std::make_unique<hopper::TileQueue>() : nullptr;
    for (int call = 0; call < 5; ++call) {
      p.poison_c(cudaStreamPerThread);
      run(p, cudaStreamPerThread, queue.get());
      CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
      const Fp8Problem::Error e = p.compare();
      if (e.unwritten != 0 || e.nonfinite != 0 || e.rel_err > fp8_tolerance(p.scaling()))
        failures.push_back("call " + std::to_string(call) + ": rel err " + std::to_string(e.rel_err) + ", unwritten " +
                           std::to_string(e.unwritten));
    }
  });
}

TEST_CASE("the FP8 check fails a C left unwritten and a C with the wrong scale", "[fp8]") {
  require_hopper_or_skip();
  for (Scaling scaling : {Scaling::tensor, Scaling::block}) {
    INFO(scaling_name(scaling));
    Fp8Problem p({128, 256, 256}, scaling);
    p.new_inputs(fresh_seed(), 1);
    p.compute_reference(1);
    p.poison_c();
    CUDA_CHECK(cudaDeviceSynchronize());
    CHECK(p.compare().unwritten == 128 * 256);
    scale_a_by(p, 1.5f);  // the reference still has the old scales
    run(p);
    CUDA_CHECK(cudaDeviceSynchronize());
    CHECK(p.compare().rel_err > 0.1);
  }
}
