// Command-line parsing for the version binaries and the ladder. Host code only: bad arguments
// are refused here, before any CUDA call, by std::invalid_argument naming the flag, the value and
// the rule. That includes an output file whose folder cannot be written (looked at, nothing created).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/fp8_version.h"
#include "common/problem.h"

namespace matmul {

// Exit codes of every binary (docs/design.md, "Command line"): 1 is a wrong result or any other
// failure (a CUDA error, a file that cannot be written); 2 and 3 are refusals before any GPU work;
// 4 is a valid shape that this kernel cannot run (NotImplemented: a peer's rule), refused before it launches.
enum ExitCode { exit_pass = 0, exit_failed = 1, exit_bad_arguments = 2, exit_no_gpu = 3, exit_not_implemented = 4 };

inline constexpr int min_iters = 20;  // medians come from at least this many timed launches
inline constexpr int64_t headline_size = 8192;  // where the ladder adds its sustained runs
inline constexpr int max_trace_ctas = 64;  // each traced CTA's logs take a few MB of device memory

struct TimingFlags {
  int warmup = 10;
  int iters = 30;
};

// A version binary: build/bin/v0_naive --size 4096 --dtype bf16
struct Options {
  Shape shape{8192, 8192, 8192};
  DType dtype = DType::fp16;
  TimingFlags timing;
  bool check = true;
  bool queue = true;  // a persistent rung (v5 on) draws its tiles from a queue; --no-queue: the static stride
  std::string json;  // write the result here too
  int sustain_s = 0;  // seconds of sustained load per kernel after the timing; 0: none
  std::string trace;  // the trace build only: write the timeline of the last launch here
  int trace_ctas = 1;  // CTAs 0 .. trace_ctas-1 are traced
  bool help = false;
};

// The ladder: every registered version and cuBLAS over a set of square sizes; or a suite of other shapes.
struct LadderOptions {
  std::string suite;  // empty: the square sizes; "llm": the Llama-3 layers (common/harness/llm_suite.h)
  std::vector<std::string> versions;  // empty: all
  std::vector<int64_t> sizes{512, 1024, 2048, 4096, 8192, 16384};
  std::vector<DType> dtypes{DType::fp16, DType::bf16};
  TimingFlags timing{10, min_iters};
  double budget_s = 60;  // a run predicted to take longer than this is skipped
  int sustain_s = 2;  // seconds of sustained load per kernel at headline_size; 0: none
  std::string out;  // default: ladder_results_file's
  bool list = false;
  bool help = false;
};

// Two kernels head to head, launch by launch in one process: build/bin/head_to_head --versions A,B
struct HeadToHeadOptions {
  std::vector<std::string> versions;  // exactly two
  std::vector<int64_t> sizes{4096, 8192, 16384};
  std::vector<DType> dtypes{DType::fp16, DType::bf16};
  TimingFlags timing{10, 100};
  int rounds = 4;  // interleaved runs per size and dtype, alternating which kernel goes first
  bool help = false;
};

// The FP8 rung's binary: build/bin/v10_fp8 --sizes 8192 --scales tensor (common/harness/fp8_cli.h).
struct Fp8Options {
  std::vector<Shape> shapes{{4096, 4096, 4096}, {8192, 8192, 8192}, {16384, 16384, 16384}};
  std::vector<Scaling> scalings{Scaling::tensor, Scaling::block};
  TimingFlags timing;
  bool check = true;
  int sustain_s = 0;  // seconds of sustained load per kernel at 8192³; 0: none
  bool precision = false;  // the error table over K instead of the timing
  std::string json;
  bool help = false;
};

// The tensor-parallel rung's binary: build/bin/v11_tensor_parallel --devices 0,1 (v11_tensor_parallel/main.cu).
struct TensorParallelOptions {
  std::vector<int> devices{0};  // a rank each; one GPU listed for every rank is the loopback group
  DType dtype = DType::fp16;
  std::vector<int64_t> ms{2048, 8192, 32768};  // tokens
  int iters = 10;
  int chunk_cost = 0;  // --chunk-cost P: the chunked forms' GEMMs for P ranks, on one GPU; 0: off
  std::string json;
  bool help = false;
};

// Refuses a bad shape (naming the flag that set the dimension), a --json or --trace FILE whose
// folder does not exist or is not writable, and --trace in a build without tracing.
Options parse_options(const std::vector<std::string>& args);
// `known_versions`: the names --versions accepts (the registered versions and cuBLAS). Refuses an
// unknown suite, an unknown name, a flag of the square sizes with --suite, a restricted run without
// --out, then an output file whose folder can neither be written nor created (the ladder creates
// it), the default file included.
LadderOptions parse_ladder_options(const std::vector<std::string>& args,
                                   const std::vector<std::string>& known_versions);

// The ladder's results file: --out, else results/<gpu>.json, or results/<gpu>_<suite>.json for a suite.
std::string ladder_results_file(const LadderOptions& o, const std::string& gpu);

// `known_versions`: the names --versions accepts. Refuses anything but two distinct known names.
HeadToHeadOptions parse_head_to_head_options(const std::vector<std::string>& args,
                                             const std::vector<std::string>& known_versions);

// Refuses what parse_options refuses, and the FP8 rules (K a multiple of 16), naming the flag.
Fp8Options parse_fp8_options(const std::vector<std::string>& args);

// Refuses a GPU listed twice (but one GPU for every rank), an M that is not a positive multiple of
// the ranks, and a --json FILE whose folder does not exist or is not writable.
TensorParallelOptions parse_tensor_parallel_options(const std::vector<std::string>& args);

std::string usage(const std::string& program);
std::string ladder_usage(const std::string& program);
std::string head_to_head_usage(const std::string& program);
std::string fp8_usage(const std::string& program);
std::string tensor_parallel_usage(const std::string& program);

}  // namespace matmul
