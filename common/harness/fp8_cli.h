// The FP8 binary (build/bin/v10_fp8): verify an FP8 version against an fp64 reference and time it
// against cuBLASLt's FP8 GEMM, launch by launch; or measure the accumulation error over K.
#pragma once
#include <string>
#include <vector>

#include "common/fp8_version.h"
#include "common/problem.h"

namespace matmul {

struct Fp8Options {
  std::vector<Shape> shapes{{4096, 4096, 4096}, {8192, 8192, 8192}, {16384, 16384, 16384}};
  std::vector<Scaling> scalings{Scaling::tensor, Scaling::block};
  int warmup = 10, iters = 30;
  bool check = true;
  int sustain_s = 0;  // seconds of sustained load per kernel at 8192³; 0: none
  bool precision = false;  // the error table over K instead of the timing
  std::string json;
  bool help = false;
};

// Refuses unknown flags and bad values by name (std::invalid_argument), before any CUDA call.
Fp8Options parse_fp8_options(const std::vector<std::string>& args);
std::string fp8_usage(const std::string& program);

// The whole of main(): parse, check the GPU, run, print; the exit codes of cli.h.
int run_fp8_cli(const Fp8Version& v, int argc, char** argv);

}  // namespace matmul
