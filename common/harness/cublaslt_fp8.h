// cuBLASLt's FP8 GEMM on this project's FP8 problem: the reference v10_fp8 is timed against.
#pragma once
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "common/harness/fp8.h"

namespace matmul {

// One problem's cuBLASLt matmul, set up once (descriptors, the heuristic's first algorithm, a
// 32 MiB workspace, as cuBLAS recommends on Hopper) and launched as often as wanted, in the
// problem's scaling (block: cuBLASLt's Hopper modes, 128 × 128 blocks for B and 1 × 128 for A) or
// as `mode` says: a block-scaled problem run in the scalar mode reads the first scale of each
// operand, a product as long to compute, not the same one. fast_accum: cuBLASLt's
// CUBLASLT_MATMUL_DESC_FAST_ACCUM, accumulation without the periodic promotion to fp32 registers
// (off by default). Throws NotImplemented when cuBLASLt has no algorithm for the problem.
class CublasLtFp8 {
 public:
  CublasLtFp8(const Fp8Problem& p, bool fast_accum, Scaling mode);
  ~CublasLtFp8();
  CublasLtFp8(const CublasLtFp8&) = delete;
  CublasLtFp8& operator=(const CublasLtFp8&) = delete;
  // C = A·Bᵀ scaled, into the problem's C.
  void run(cudaStream_t stream = nullptr) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// "cuBLASLt 130100": the library's version, for results files.
std::string cublaslt_version();

}  // namespace matmul
