// The GPU battery, run for every registered version and peer (and for cuBLAS, the baseline): each
// check on fresh random inputs, C poisoned before every run, a guard band past C, two runs compared
// bit for bit (all inside Workspace::verify), ragged shapes and both dtypes; a shape a peer cannot
// run is skipped, with the reason. Tagged [versions] and [baseline]: CTest runs them once per
// version, once per peer and once for cuBLAS (tests/CMakeLists.txt).
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/generators/catch_generators_range.hpp>

#include <cmath>
#include <vector>

#include "common/harness/harness.h"
#include "gpu.h"

using namespace matmul;

namespace {

std::vector<float> to_host(const void* device, size_t count, DType t) {
  const std::vector<uint16_t> bits = copy_to_host(device, count);
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i) {
    if (t == DType::fp16)
      out[i] = __half2float(__half_raw{bits[i]});
    else
      out[i] = __bfloat162float(__nv_bfloat16_raw{bits[i]});
  }
  return out;
}

// ‖C − A·Bᵀ‖_F / ‖A·Bᵀ‖_F with the product computed in fp64 on the CPU.
double error_against_fp64(const Workspace& w, DType t, Shape s) {
  const auto a = to_host(w.a(), s.m * s.k, t), b = to_host(w.b(), s.n * s.k, t), c = to_host(w.c(), s.m * s.n, t);
  double err2 = 0, ref2 = 0;
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      double ref = 0;
      for (int64_t p = 0; p < s.k; ++p) ref += double(a[i * s.k + p]) * double(b[j * s.k + p]);
      err2 += (c[i * s.n + j] - ref) * (c[i * s.n + j] - ref);
      ref2 += ref * ref;
    }
  return std::sqrt(err2 / ref2);
}

// M and N of 1, primes, sizes next to tile multiples; K = 8, K not a multiple of 64, long K;
// 1500 rows: 12 rows of 128-row tiles, a group of 8 and a last group of 4 in grouped order. The
// last five: ragged M and K with N a multiple of 8, the ragged edges the peers can run too.
const std::vector<Shape> ragged_shapes = {
    {1, 1, 8},        {1, 257, 64},   {257, 1, 64},     {2, 3, 8},       {127, 131, 8},      {131, 127, 72},
    {97, 389, 1000},  {128, 256, 64}, {129, 255, 4096}, {255, 129, 200}, {1000, 1000, 1016}, {64, 4093, 136},
    {1500, 700, 136}, {1, 8, 8},      {129, 264, 4096}, {257, 136, 72},  {97, 392, 1000},    {1500, 704, 136},
};

}  // namespace

TEST_CASE("every version matches an fp64 CPU reference on small shapes", "[versions][baseline]") {
  require_hopper_or_skip();
  const Version* v = GENERATE(from_range(tested_versions(true)));
  const DType t = GENERATE(DType::fp16, DType::bf16);
  const Shape s = GENERATE(Shape{1, 1, 8}, Shape{3, 5, 16}, Shape{33, 17, 40}, Shape{64, 64, 64}, Shape{130, 70, 136},
                           Shape{33, 16, 40}, Shape{130, 72, 136});
  INFO(v->name << " " << dtype_name(t) << " " << s.m << "x" << s.n << "x" << s.k);
  Workspace w(t, s);
  Verification check;
  if (const auto why = not_implemented(*v, [&] { check = w.verify(*v); })) SKIP(*why);
  INFO(check.failure());
  CHECK(check.pass());
  CHECK(error_against_fp64(w, t, s) <= tolerance(t));
}

TEST_CASE("every version matches cuBLAS on ragged shapes in both dtypes", "[versions][baseline]") {
  require_hopper_or_skip();
  const Version* v = GENERATE(from_range(tested_versions(true)));
  const DType t = GENERATE(DType::fp16, DType::bf16);
  const Shape s = GENERATE(from_range(ragged_shapes));
  INFO(v->name << " " << dtype_name(t) << " " << s.m << "x" << s.n << "x" << s.k);
  Workspace w(t, s);
  Verification check;
  if (const auto why = not_implemented(*v, [&] { check = w.verify(*v); })) SKIP(*why);
  INFO(check.failure());
  CHECK(check.pass());
  CHECK(check.unwritten == 0);
  CHECK(check.guard_damage == 0);
  CHECK(check.rerun_differences == 0);
}

TEST_CASE("every version stays correct on fresh inputs, checked three times in a row", "[versions][baseline]") {
  require_hopper_or_skip();
  const Version* v = GENERATE(from_range(tested_versions(true)));
  Workspace w(DType::bf16, {300, 200, 520});
  for (int round = 0; round < 3; ++round) {
    w.new_inputs();
    const Verification check = w.verify(*v);
    INFO(v->name << " round " << round << ": " << check.failure());
    CHECK(check.pass());
  }
}
