// The checks must be able to fail: deliberately broken versions, each caught by the check
// meant for its kind of bug. And the inputs they see are fresh, random and scaled.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/harness/bandwidth.h"
#include "common/harness/cublas.h"
#include "common/harness/fill.h"
#include "common/harness/harness.h"
#include "gpu.h"

using namespace matmul;

namespace {

// Each broken version computes the right product with cuBLAS, then spoils it in one way.
template <typename T>
void correct(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t s) {
  if constexpr (std::is_same_v<T, __half>)
    cublas_version().fp16(a, b, c, m, n, k, s);
  else
    cublas_version().bf16(a, b, c, m, n, k, s);
}

template <typename T>
void skips_last_element(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t s) {
  correct(a, b, c, m, n, k, s);
  fill_bits(c + size_t(m) * n - 1, 1, poison_bits, s);
}

template <typename T>
void writes_past_the_end(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t s) {
  correct(a, b, c, m, n, k, s);
  fill_bits(c + size_t(m) * n, 1, 0, s);
}

template <typename T>
void writes_before_the_start(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t s) {
  correct(a, b, c, m, n, k, s);
  fill_bits(c - 1, 1, 0, s);
}

template <typename T>
void zeroes_a_short_run(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t s) {
  correct(a, b, c, m, n, k, s);
  fill_bits(c + size_t(m) * n / 2, 64, 0, s);  // 64 zeros in the middle of C: a race on part of one tile
}

template <typename T>
void drops_last_k_slice(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t s) {
  correct(a, b, c, m, n, k - 8, s);  // wrong: the leading dimension is still k, in cuBLAS's view k - 8
}

template <typename T>
void writes_a_nan(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t s) {
  correct(a, b, c, m, n, k, s);
  fill_bits(c + 5, 1, 0x7FFF, s);  // a NaN in fp16 and in bf16, but not the poison
}

template <typename T>
void differs_between_runs(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t s) {
  static int calls = 0;
  correct(a, b, c, m, n, k, s);
  if (++calls % 2) fill_bits(c, 1, 0x3C00, s);
}

#define BROKEN(fn)                                                  \
  Version {                                                         \
#fn, "broken on purpose", fn < __half>, fn < __nv_bfloat16>, {} \
  }

const Shape shape{64, 48, 64};

}  // namespace

TEST_CASE("verification catches an element never written") {
  require_hopper_or_skip();
  Workspace w(DType::fp16, shape);
  const Verification r = w.verify(BROKEN(skips_last_element));
  CHECK(r.unwritten == 1);
  CHECK_FALSE(r.pass());
}

TEST_CASE("verification catches a store outside C, past its end or before its start") {
  require_hopper_or_skip();
  const Version broken = GENERATE(BROKEN(writes_past_the_end), BROKEN(writes_before_the_start));
  INFO(broken.name);
  Workspace w(DType::bf16, shape);
  const Verification r = w.verify(broken);
  CHECK(r.guard_damage > 0);
  CHECK_FALSE(r.pass());
}

TEST_CASE("verification catches a few wrong elements that the Frobenius error alone would miss") {
  require_hopper_or_skip();
  Workspace w(DType::bf16, {2048, 2048, 256});
  const Verification r = w.verify(BROKEN(zeroes_a_short_run));
  CHECK(r.rel_err < tolerance(DType::bf16));  // 64 of 4M elements: about 0.004
  CHECK(r.outliers > 50);  // each zero is far from its reference
  CHECK_FALSE(r.pass());
}

TEST_CASE("verification catches a wrong product") {
  require_hopper_or_skip();
  Workspace w(DType::fp16, shape);
  const Verification r = w.verify(BROKEN(drops_last_k_slice));
  CHECK(r.rel_err > tolerance(DType::fp16));
  CHECK_FALSE(r.pass());
}

TEST_CASE("verification catches a NaN") {
  require_hopper_or_skip();
  Workspace w(DType::fp16, shape);
  const Verification r = w.verify(BROKEN(writes_a_nan));
  CHECK(r.nonfinite == 1);
  CHECK_FALSE(r.pass());
}

TEST_CASE("verification catches two runs that disagree") {
  require_hopper_or_skip();
  Workspace w(DType::fp16, shape);
  const Verification r = w.verify(BROKEN(differs_between_runs));
  CHECK(r.rerun_differences == 1);
  CHECK_FALSE(r.pass());
}

TEST_CASE("inputs are fresh for every check, random, and scaled so C has unit variance") {
  require_hopper_or_skip();
  const Shape s{256, 256, 1024};
  Workspace w(DType::fp16, s);
  const size_t count = size_t(s.m) * s.k;
  const auto first = copy_to_host(w.a(), count);
  w.new_inputs();
  const auto second = copy_to_host(w.a(), count);
  size_t same = 0, zeros = 0;
  for (size_t i = 0; i < count; ++i) {
    same += first[i] == second[i];
    zeros += (second[i] & 0x7FFF) == 0;
  }
  CHECK(same < count / 100);
  CHECK(zeros < count / 100);

  REQUIRE(w.verify(cublas_version()).pass());
  double sum2 = 0;
  for (uint16_t bits : copy_to_host(w.c(), size_t(s.m) * s.n)) {
    const double x = __half2float(__half_raw{bits});
    sum2 += x * x;
  }
  const double rms = std::sqrt(sum2 / double(s.m * s.n));
  CHECK(rms > 0.9);
  CHECK(rms < 1.1);
}

TEST_CASE("the read kernel of the HBM read limit reads every word once, the last partial round included") {
  require_hopper_or_skip();
  // Word i holds i · 2654435761 (a different sum for any word skipped or read twice); the sizes leave
  // a last round partly empty: 5 16-byte loads, under one per thread, and a million plus a remainder.
  for (const size_t loads : {size_t(5), size_t(1) << 20 | 12345}) {
    std::vector<uint32_t> words(loads * 4);
    uint32_t want = 0;
    for (size_t i = 0; i < words.size(); ++i) want += words[i] = uint32_t(i) * 2654435761u;
    DeviceBuffer data(words.size() * sizeof(uint32_t));
    CUDA_CHECK(cudaMemcpy(data.get(), words.data(), data.bytes(), cudaMemcpyHostToDevice));
    CHECK(read_sum(data.get(), data.bytes()) == want);
    CHECK(read_sum(data.get(), data.bytes() - 16) == want - (words[words.size() - 4] + words[words.size() - 3] +
                                                             words[words.size() - 2] + words[words.size() - 1]));
  }
}
