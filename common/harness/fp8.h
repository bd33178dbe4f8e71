// The FP8 problem's inputs, reference and verification (v10_fp8; docs/design.md, "FP8").
// The scales' layouts: common/fp8_version.h.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/fp8_version.h"
#include "common/harness/device_buffer.h"
#include "common/problem.h"

namespace matmul {

// The relative Frobenius error against the exact product that an FP8 result may have and pass:
// bf16's rounding of C (about 1.7e-3 measured), plus, for the per-tensor form, what the WGMMA
// accumulator alone loses over a long K (7e-3 at K = 65,536; docs/v10_fp8.md). A wrong tile, row
// or scale is off by order 1.
inline double fp8_tolerance(Scaling s) { return s == Scaling::block ? 3e-3 : 1e-2; }

// Floats of each operand's scales.
int64_t scale_a_count(Scaling s, Shape p);
int64_t scale_b_count(Scaling s, Shape p);

// An FP8 problem on the device: A and B in e4m3, their scales, C in bf16 and the fp64 reference
// of the rows it checks.
class Fp8Problem {
 public:
  Fp8Problem(Shape s, Scaling scaling);
  // Fresh inputs: e4m3 elements uniform over ±448 (what a quantizer that maps each block's
  // largest magnitude to 448 produces) and scales 2^e, e uniform in [-spread, spread] (all 1 with
  // spread 0). With outlier_every = r > 0 and block scales, every r-th row of A has its scales
  // 64 times larger, as activations with outlier channels do.
  void new_inputs(uint64_t seed, int spread, int outlier_every = 0);
  // The reference, exact but for fp64's rounding, of every `row_step`-th row of C (and the last).
  void compute_reference(int row_step);
  // Error of C (the last run's) against the reference, over the reference's rows: ‖C − ref‖_F /
  // ‖ref‖_F, and the same against the reference rounded to bf16 (what accumulation adds beyond
  // the output's own rounding); unwritten counts elements still holding the poison.
  struct Error {
    double rel_err = 0, rel_err_vs_bf16 = 0;
    int64_t unwritten = 0, nonfinite = 0;
  };
  Error compare() const;
  void poison_c(cudaStream_t stream = nullptr);

  Shape shape() const { return shape_; }
  Scaling scaling() const { return scaling_; }
  const __nv_fp8_e4m3* a() const { return static_cast<const __nv_fp8_e4m3*>(a_.get()); }
  const __nv_fp8_e4m3* b() const { return static_cast<const __nv_fp8_e4m3*>(b_.get()); }
  const float* scale_a() const { return static_cast<const float*>(scale_a_.get()); }
  const float* scale_b() const { return static_cast<const float*>(scale_b_.get()); }
  __nv_bfloat16* c() const { return static_cast<__nv_bfloat16*>(c_.get()); }

 private:
  Shape shape_;
  Scaling scaling_;
  int row_step_ = 1;
  DeviceBuffer a_, b_, scale_a_, scale_b_, c_, ref_;
};

}  // namespace matmul
