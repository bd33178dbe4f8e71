// The results file (docs/design.md, "Results file"): the contract between runs, plots and docs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/harness/gpu.h"
#include "common/version.h"

namespace matmul {

// TFLOPS as a fraction of the dense tensor peak at an SM clock; absent without the clock.
std::optional<double> tensor_util(double tflops, const std::optional<double>& sm_clock_mhz, int sm_count);

// One kernel under a sustained load (seconds of back-to-back launches): its speed, the clock and
// the board power it ran at, and what follows from them.
struct KernelUnderLoad {
  double tflops = 0;
  std::optional<double> sm_clock_mhz, power_w;
  std::optional<double> tflops_per_w() const;
};

struct Sustained {
  double seconds = 0;
  KernelUnderLoad version, cublas;
};

struct RunRecord {
  std::string version, technique;
  DType dtype = DType::fp16;
  int64_t m = 0, n = 0, k = 0;
  double ms_median = 0, ms_min = 0, ms_max = 0, tflops = 0;
  double cublas_ms_median = 0, ratio_vs_cublas = 0;
  std::optional<double> rel_err;  // absent (null) when the run was not checked
  std::optional<bool> pass;  // likewise
  std::vector<Param> config;
  double spread_pct = 0;  // (p90 - p10) / median of the version's timed launches, in %
  // Means over the timed launches (the version's and cuBLAS's, interleaved); absent without NVML.
  // The file also holds tensor_util, derived from them (tensor_util() above).
  std::optional<double> sm_clock_mhz, power_w;
  std::optional<Sustained> sustained;  // only where a sustained run was asked for
  bool peer = false;  // a peer's run (Version::peer); written only when true, absent in older files
  // The LLM suite's runs up to llm_suite.h's bandwidth_max_m: W's bytes (n·k elements) over
  // ms_median, in GB/s; written only then. With it, read_gbps: our read kernel over the same bytes,
  // timed alike (bandwidth.h's hbm_read_gbps), what a plain read of W reaches at this size.
  std::optional<double> weight_gbps, read_gbps;
};

// A run the ladder left out, and why (a version too slow for a size).
struct SkippedRun {
  std::string version;
  DType dtype = DType::fp16;
  int64_t m = 0, n = 0, k = 0;
  std::string reason;
};

struct Results {
  DeviceInfo device;
  std::string git;  // commit the binaries were built from
  std::string date;  // UTC, ISO 8601
  std::vector<RunRecord> runs;
  std::vector<SkippedRun> skipped;
  std::optional<double> hbm_read_gbps;  // the LLM suite's measured HBM read limit; written only there
};

std::string to_json_text(const Results& r);

// Throws std::invalid_argument naming what is missing or malformed.
Results parse_results(const std::string& text);

void write_results(const std::string& path, const Results& r);

// Writes to a temporary file beside `path`, then renames it over `path`: a crash never leaves
// half a file, and an earlier file survives until the new one is complete.
void write_file(const std::string& path, const std::string& text);

Results read_results(const std::string& path);

// The commit of the checkout the binaries were built from ("a1b2c3d", with "-dirty" for
// uncommitted changes), or "unknown";
// $MATMUL_GIT_COMMIT overrides it where the tree was copied without its .git (a remote GPU box).
std::string git_commit();

// Now, as "2026-11-29T09:30:00Z".
std::string utc_now();

}  // namespace matmul
