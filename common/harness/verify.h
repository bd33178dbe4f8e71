// Verification of one output against the fp32 reference (docs/design.md, "Verification").
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/dtype.h"

namespace matmul {

// The largest relative Frobenius error that passes. A correct fp32-accumulating kernel differs
// from the fp32 reference by the rounding of C to T: rms 2⁻¹¹/√3 ≈ 3e-4 for fp16, 2⁻⁸/√3 ≈ 2e-3 for bf16.
inline double tolerance(DType t) { return t == DType::fp16 ? 1e-3 : 1e-2; }

// The unit roundoff of T: rounding a value x to T moves it by at most u·|x|. One element may
// differ from the reference by u·(2·|ref| + 8·rms(ref)): its rounding, with room for a different
// order of the sums and for partial sums rounded to T (cuBLAS's own fp16 result at 129×255×4096
// strays past u·(2·|ref| + rms) in 47 of 33k elements on the H200). A few wrong elements in a
// large C hardly move the Frobenius error; this bound still catches each one that is off by
// more than a few percent of rms(ref).
inline double unit_roundoff(DType t) { return t == DType::fp16 ? 0x1p-11 : 0x1p-8; }

struct Verification {
  DType dtype = DType::fp16;
  double rel_err = 0;  // ‖C − ref‖_F / ‖ref‖_F over the elements written with finite values
  int64_t unwritten = 0;  // elements of C still holding the poison
  int64_t nonfinite = 0;  // other NaN or Inf elements of C
  int64_t outliers = 0;  // written elements further from the reference than unit_roundoff allows
  int64_t guard_damage = 0;  // guard-band words before and after C that changed
  int64_t rerun_differences = -1;  // elements of C that differ between two runs on the same inputs (-1: not run)

  // Empty when everything passes, else what failed first, in words.
  std::string failure() const;
  bool pass() const { return failure().empty(); }
};

// Compares C (count elements of type t) with ref; fills rel_err, outliers, unwritten and nonfinite.
Verification compare_to_reference(DType t, const void* c, const float* ref, size_t count);

// Number of 16-bit words in data[0, count) that are not `bits`.
int64_t count_not_equal(const void* data, size_t count, uint16_t bits);

// Number of 16-bit words where a and b differ.
int64_t count_differences(const void* a, const void* b, size_t count);

}  // namespace matmul
