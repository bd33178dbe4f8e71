#include "common/harness/cublaslt_fp8.h"

#include <cublasLt.h>

#include <string>

#include "common/check.h"

namespace matmul {

namespace {

void check_lt(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) throw_cuda_error(call, cublasGetStatusString(status), file, line);
}
#define LT_CHECK(call) check_lt((call), #call, __FILE__, __LINE__)

constexpr size_t workspace_bytes = size_t(32) << 20;

}  // namespace

struct CublasLtFp8::State {
  const Fp8Problem* problem = nullptr;
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  DeviceBuffer workspace{workspace_bytes};
};

// Row-major C (m×n) = A·Bᵀ is column-major Cᵀ (n×m) = op(B')·A' with B' and A' the column-major
// k×n and k×m views of B and A: cuBLASLt's "A" is our B (transposed: the TN form FP8 requires on
// Hopper) and its "B" is our A. So its A-scale is B's and its B-scale is A's.
CublasLtFp8::CublasLtFp8(const Fp8Problem& p, bool fast_accum, Scaling mode) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.problem = &p;
  const Shape sh = p.shape();
  LT_CHECK(cublasLtCreate(&s.handle));
  LT_CHECK(cublasLtMatmulDescCreate(&s.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t transpose = CUBLAS_OP_T, keep = CUBLAS_OP_N;
  LT_CHECK(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof(transpose)));
  LT_CHECK(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof(keep)));
  const float* their_a_scale = p.scale_b();
  const float* their_b_scale = p.scale_a();
  LT_CHECK(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &their_a_scale,
                                          sizeof(their_a_scale)));
  LT_CHECK(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &their_b_scale,
                                          sizeof(their_b_scale)));
  if (mode == Scaling::block) {
    const int32_t a_mode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F,
                  b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    LT_CHECK(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &a_mode, sizeof(a_mode)));
    LT_CHECK(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &b_mode, sizeof(b_mode)));
  }
  const int8_t fast = fast_accum ? 1 : 0;
  LT_CHECK(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof(fast)));
  LT_CHECK(cublasLtMatrixLayoutCreate(&s.a, CUDA_R_8F_E4M3, uint64_t(sh.k), uint64_t(sh.n), sh.k));
  LT_CHECK(cublasLtMatrixLayoutCreate(&s.b, CUDA_R_8F_E4M3, uint64_t(sh.k), uint64_t(sh.m), sh.k));
  LT_CHECK(cublasLtMatrixLayoutCreate(&s.c, CUDA_R_16BF, uint64_t(sh.n), uint64_t(sh.m), sh.n));

  cublasLtMatmulPreference_t preference = nullptr;
  LT_CHECK(cublasLtMatmulPreferenceCreate(&preference));
  const uint64_t bytes = workspace_bytes;
  LT_CHECK(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes,
                                                sizeof(bytes)));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t status =
      cublasLtMatmulAlgoGetHeuristic(s.handle, s.desc, s.a, s.b, s.c, s.c, preference, 1, &result, &found);
  cublasLtMatmulPreferenceDestroy(preference);
  if (status != CUBLAS_STATUS_SUCCESS || found == 0)
    throw NotImplemented("cuBLASLt has no FP8 algorithm for " + std::to_string(sh.m) + "x" + std::to_string(sh.n) +
                         "x" + std::to_string(sh.k) + " with " + scaling_name(mode) + " scales");
  s.algo = result.algo;
}

CublasLtFp8::~CublasLtFp8() {
  State& s = *state_;
  cublasLtMatrixLayoutDestroy(s.c);
  cublasLtMatrixLayoutDestroy(s.b);
  cublasLtMatrixLayoutDestroy(s.a);
  cublasLtMatmulDescDestroy(s.desc);
  cublasLtDestroy(s.handle);
}

void CublasLtFp8::run(cudaStream_t stream) const {
  const State& s = *state_;
  const Fp8Problem& p = *s.problem;
  const float alpha = 1.0f, beta = 0.0f;
  LT_CHECK(cublasLtMatmul(s.handle, s.desc, &alpha, p.b(), s.a, p.a(), s.b, &beta, p.c(), s.c, p.c(), s.c, &s.algo,
                          s.workspace.get(), workspace_bytes, stream));
}

std::string cublaslt_version() { return "cuBLASLt " + std::to_string(cublasLtGetVersion()); }

}  // namespace matmul
