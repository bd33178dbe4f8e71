// For GPU tests: skip (visibly, counted as skipped by CTest) when there is no Hopper GPU, run for
// the versions and peers MATMUL_TEST_VERSIONS selects, and skip, visibly, a shape a peer cannot run.
#pragma once
#include <catch2/catch_test_macros.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/all_kernels.h"
#include "common/check.h"
#include "common/harness/cublas.h"
#include "common/harness/device_buffer.h"
#include "common/harness/fill.h"
#include "common/harness/gpu.h"
#include "common/problem.h"

// Why the GPU tests cannot run here, or "" when they can: query_device's reason ("no NVIDIA
// GPU/driver found", or the GPU that is not Hopper).
inline std::string gpu_unavailable_reason() {
  try {
    matmul::require_hopper(matmul::query_device());
    return "";
  } catch (const matmul::NoUsableGpu& e) {
    return e.what();
  }
}

// The versions the GPU tests run: the names in MATMUL_TEST_VERSIONS (comma-separated; set per
// version by the "gpu: <version>" CTest entries, see tests/CMakeLists.txt), else every registered
// version, in ladder order, then the peers. A version's name also selects its alternative, named
// <version>_<form> (v6_tma_store_pingpong). "cublas" names the baseline, which only the tests that take it
// (with_baseline) run; a test left with nothing to run is skipped. A name that is neither is an
// error, not an empty selection.
inline std::vector<const matmul::Version*> tested_versions(bool with_baseline = false) {
  const std::vector<const matmul::Version*> all = matmul::all_kernels();
  const char* env = std::getenv("MATMUL_TEST_VERSIONS");
  const std::string names = env ? env : "";
  const auto selected = [&](const std::string& version) {
    for (size_t start = 0; start <= names.size();) {
      const size_t comma = std::min(names.find(',', start), names.size());
      const std::string name = names.substr(start, comma - start);
      if (version == name || version.rfind(name + "_", 0) == 0) return true;
      start = comma + 1;
    }
    return false;
  };
  std::vector<const matmul::Version*> chosen;
  for (const matmul::Version* v : all)
    if (names.empty() || selected(v->name))
      if (with_baseline || v != &matmul::cublas_version()) chosen.push_back(v);
  for (size_t start = 0; start < names.size();) {
    const size_t comma = std::min(names.find(',', start), names.size());
    const std::string name = names.substr(start, comma - start);
    bool known = false;
    for (const matmul::Version* v : all) known = known || v->name == name;
    if (!known) {
      std::string list;
      for (const matmul::Version* v : all) list += (list.empty() ? "" : ", ") + v->name;
      throw std::invalid_argument("MATMUL_TEST_VERSIONS='" + names + "' names '" + name +
                                  "', which is neither a registered version, a peer nor cublas (" + list + ")");
    }
    start = comma + 1;
  }
  if (chosen.empty()) SKIP("MATMUL_TEST_VERSIONS=" << names << " selects none of the versions this test runs");
  return chosen;
}

// First thing in every GPU test. The reason for a skip is printed once per process, and every test
// fails on a bad MATMUL_TEST_VERSIONS, GPU or not.
inline void require_hopper_or_skip() {
  tested_versions(true);
  static const std::string unavailable = [] {
    std::string reason = gpu_unavailable_reason();
    if (!reason.empty()) std::cerr << "gpu tests skipped: " << reason << std::endl;
    return reason;
  }();
  if (!unavailable.empty()) SKIP(unavailable);
}

// The 16-bit words of `count` elements of device memory.
inline std::vector<uint16_t> copy_to_host(const void* device, size_t count) {
  std::vector<uint16_t> bits(count);
  CUDA_CHECK(cudaMemcpy(bits.data(), device, count * sizeof(uint16_t), cudaMemcpyDeviceToHost));
  return bits;
}

// A peer throws matmul::NotImplemented, before it launches anything, for a valid shape its library
// cannot run (CUTLASS's TMA store: N % 8 == 0). The tests skip that run and say so: `run` is called,
// and where it throws that for a peer the reason comes back, naming the peer, the shape and the rule,
// for the test to SKIP with (a generated run, counted as skipped) or to WARN with (one step of a
// loop). A version of the ladder that throws it fails the test.
template <typename F>
std::optional<std::string> not_implemented(const matmul::Version& v, F&& run) {
  try {
    run();
    return std::nullopt;
  } catch (const matmul::NotImplemented& e) {
    if (!v.peer) throw;
    return v.name + " skipped: " + e.what();
  }
}

// Runs body(i, failures) on `threads` host threads at once. Catch2's checks are for one thread: a
// thread notes what failed (or throws), and the checks are made once all have joined.
template <typename F>
inline void on_threads(int threads, F&& body) {
  std::vector<std::vector<std::string>> failures(size_t(threads), std::vector<std::string>{});
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i)
    pool.emplace_back([&, i] {
      try {
        body(i, failures[size_t(i)]);
      } catch (const std::exception& e) {
        failures[size_t(i)].push_back(e.what());
      }
    });
  for (std::thread& th : pool) th.join();
  for (int i = 0; i < threads; ++i) {
    INFO("thread " << i);
    for (const std::string& f : failures[size_t(i)]) FAIL_CHECK(f);
  }
}

// One problem with buffers of its own: random A and B, C poisoned, all on `stream`.
struct Operands {
  Operands(matmul::Shape s, matmul::DType t, cudaStream_t stream = nullptr)
      : shape(s), a(size_t(s.m) * s.k * 2), b(size_t(s.n) * s.k * 2), c(size_t(s.m) * s.n * 2), first(c.bytes()) {
    new_inputs(t, stream);
    matmul::fill_bits(c.get(), c_count(), matmul::poison_bits, stream);
  }
  void new_inputs(matmul::DType t, cudaStream_t stream = nullptr) {
    matmul::fill_uniform(a.get(), size_t(shape.m) * shape.k, t, matmul::input_scale(shape.k), matmul::fresh_seed(),
                         stream);
    matmul::fill_uniform(b.get(), size_t(shape.n) * shape.k, t, matmul::input_scale(shape.k), matmul::fresh_seed(),
                         stream);
  }
  size_t c_count() const { return size_t(shape.m) * shape.n; }
  matmul::Shape shape;
  matmul::DeviceBuffer a, b, c, first;
};
