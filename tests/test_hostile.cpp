// Hostile and repetitive use, for every registered version and peer: refused calls leave nothing behind,
// results do not change between runs or after other shapes, large problems index in 64 bits, and
// a barrier wait on the wrong phase ends in a report instead of a hang. The cases tagged [versions]
// run once per version under CTest (tests/CMakeLists.txt).
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/generators/catch_generators_range.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <sys/wait.h>

#include <chrono>
#include <cstdio>

#include "common/harness/cublas.h"
#include "common/harness/fill.h"
#include "common/harness/harness.h"
#include "gpu.h"

using namespace matmul;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("a refused call launches nothing and leaves no CUDA error behind", "[versions]") {
  require_hopper_or_skip();
  const Version* v = GENERATE(from_range(tested_versions()));
  INFO(v->name);
  Operands x({64, 64, 64}, DType::fp16);
  const auto* a = static_cast<const __half*>(x.a.get());
  const auto* b = static_cast<const __half*>(x.b.get());
  auto* c = static_cast<__half*>(x.c.get());
  const DType t = DType::fp16;
  CHECK_THROWS_WITH(v->run(t, a, b, c, 64, 64, 60, nullptr), ContainsSubstring("K must be a multiple of 8"));
  CHECK_THROWS_WITH(v->run(t, a, b, c, 64, 0, 64, nullptr), ContainsSubstring("N = 0 is invalid"));
  CHECK_THROWS_WITH(v->run(t, a, b, c, -64, 64, 64, nullptr), ContainsSubstring("M = -64 is invalid"));
  CHECK_THROWS_WITH(v->run(t, a, b, nullptr, 64, 64, 64, nullptr), "pointer C is null");
  CHECK_THROWS_WITH(v->run(t, a + 4, b, c, 64, 64, 56, nullptr), ContainsSubstring("pointer A is not 16-byte aligned"));
  CHECK_THROWS_WITH(v->run(t, a, b, c + 1, 64, 63, 64, nullptr), ContainsSubstring("pointer C is not 16-byte aligned"));
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(count_not_equal(c, x.c_count(), poison_bits) == 0);  // C untouched: nothing ran
}

TEST_CASE("50 back-to-back runs on the same inputs give bit-identical C", "[versions]") {
  require_hopper_or_skip();
  const Version* v = GENERATE(from_range(tested_versions()));
  const DType t = GENERATE(DType::fp16, DType::bf16);
  INFO(v->name << " " << dtype_name(t));
  Operands x({1000, 1000, 1016}, t);
  const int m = int(x.shape.m), n = int(x.shape.n), k = int(x.shape.k);
  v->run(t, x.a.get(), x.b.get(), x.first.get(), m, n, k, nullptr);
  int64_t differing = 0;
  for (int run = 0; run < 50; ++run) {
    fill_bits(x.c.get(), x.c_count(), poison_bits);
    v->run(t, x.a.get(), x.b.get(), x.c.get(), m, n, k, nullptr);
    differing += count_differences(x.c.get(), x.first.get(), x.c_count());
  }
  CHECK(differing == 0);
}

TEST_CASE("a mixed sequence of shapes in one process stays correct", "[versions]") {
  require_hopper_or_skip();
  // Small after large, ragged after aligned: stale tensor maps or barrier state would show here.
  const std::vector<Shape> sequence = {{2048, 2048, 2048}, {1, 1, 8},          {1000, 1000, 1016}, {128, 256, 64},
                                       {7, 4093, 8},       {2048, 2048, 2048}, {129, 255, 4096},   {3, 2, 16}};
  for (const Version* v : tested_versions()) {
    for (size_t step = 0; step < sequence.size(); ++step) {
      const Shape& s = sequence[step];
      Workspace w(step % 2 ? DType::bf16 : DType::fp16, s);
      Verification check;
      if (const auto why = not_implemented(*v, [&] { check = w.verify(*v); })) {
        WARN(*why);  // a peer that cannot run this shape goes on with the next
        continue;
      }
      INFO(v->name << " step " << step << ": " << s.m << "x" << s.n << "x" << s.k << ": " << check.failure());
      CHECK(check.pass());
    }
  }
}

TEST_CASE("launches on several streams at once each compute their own product", "[versions]") {
  require_hopper_or_skip();
  // A persistent grid sized to the GPU must not assume it owns it: these run side by side, each
  // with more tiles than the GPU has SMs, and each stream launches three times back to back.
  const Version* v = GENERATE(from_range(tested_versions()));
  const DType t = GENERATE(DType::fp16, DType::bf16);
  INFO(v->name << " " << dtype_name(t));
  const std::vector<Shape> shapes = {{2048, 3000, 512}, {1500, 4096, 264}, {3968, 1000, 1016}, {2304, 2304, 128}};
  std::vector<Operands> problems;
  std::vector<DeviceBuffer> refs;
  for (const Shape& s : shapes) {
    problems.emplace_back(s, t);
    refs.emplace_back(size_t(s.m) * s.n * sizeof(float));
    cublas_reference(t, problems.back().a.get(), problems.back().b.get(), static_cast<float*>(refs.back().get()),
                     int(s.m), int(s.n), int(s.k));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<cudaStream_t> streams(shapes.size());
  for (cudaStream_t& s : streams) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < shapes.size(); ++i) {
      const Shape& s = shapes[i];
      v->run(t, problems[i].a.get(), problems[i].b.get(), problems[i].c.get(), int(s.m), int(s.n), int(s.k),
             streams[i]);
    }
  CUDA_CHECK(cudaDeviceSynchronize());
  for (cudaStream_t s : streams) CUDA_CHECK(cudaStreamDestroy(s));
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Verification check =
        compare_to_reference(t, problems[i].c.get(), static_cast<const float*>(refs[i].get()), problems[i].c_count());
    INFO("problem " << i << ": " << check.failure());
    CHECK(check.pass());
  }
}

TEST_CASE("element counts past 2^31 are indexed with 64-bit offsets", "[versions]") {
  require_hopper_or_skip();
  const Version* v = GENERATE(from_range(tested_versions()));
  // A with 65544 · 32768 > 2^31 elements; then C with 65536 · 32776 > 2^31 elements.
  const Shape s = GENERATE(Shape{65544, 64, 32768}, Shape{65536, 32776, 8});
  INFO(v->name << " " << s.m << "x" << s.n << "x" << s.k);
  Workspace w(DType::bf16, s);
  const Verification check = w.verify(*v);
  INFO(check.failure());
  CHECK(check.pass());
}

TEST_CASE("a barrier wait on the wrong phase ends with a report and a trap, not a hang") {
  require_hopper_or_skip();
  const auto start = std::chrono::steady_clock::now();
  FILE* p = popen("timeout 60 '" WRONG_PHASE "' 2>&1", "r");
  REQUIRE(p != nullptr);
  std::string output;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) output += buf;
  const int status = pclose(p);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(output);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);  // the program's own verdict: the kernel failed (124 would be the timeout)
  CHECK_THAT(output, ContainsSubstring("mbarrier wait timed out: block (0,0,0) thread 0 waited 2.0 s for parity 0"));
  CHECK_THAT(output, ContainsSubstring("kernel ended: "));
  CHECK_THAT(output, !ContainsSubstring("kernel ended: no error"));
  CHECK(seconds < 20);
}
