// The FP8 binary (build/bin/v10_fp8): verify an FP8 version against an fp64 reference and time it
// against cuBLASLt's FP8 GEMM, launch by launch; or measure the accumulation error over K.
#pragma once
#include "common/fp8_version.h"

namespace matmul {

// The whole of main(): parse, check the GPU, run, print; the exit codes of cli.h.
int run_fp8_cli(const Fp8Version& v, int argc, char** argv);

}  // namespace matmul
