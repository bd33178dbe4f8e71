// What a valid problem is (docs/design.md, "Valid input"): C = A·Bᵀ with A m×k, B n×k, C m×n, all row-major.
// Every entry point checks here first; a violation throws std::invalid_argument whose message
// names the value and the rule, before anything is launched.
#pragma once
#include <cstdint>
#include <stdexcept>

namespace matmul {

struct Shape {
  int64_t m, n, k;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};

// m ≥ 1, n ≥ 1, k ≥ 8 and a multiple of 8, each below 2³¹.
void validate_shape(const Shape& s);

// Non-null and 16-byte aligned: TMA reads rows at 16-byte granularity.
void validate_operands(const void* a, const void* b, const void* c);

// e4m3 operands (v10_fp8): validate_shape's rules, and K a multiple of 16, since a row of K
// one-byte elements is K bytes and TMA needs a 16-byte row pitch.
void validate_fp8_shape(const Shape& s);

// The fp32 scale factors of an FP8 product: non-null and 4-byte aligned.
void validate_scales(const float* scale_a, const float* scale_b);

// Block scales (common/fp8_version.h's layout) are copied in 16-byte runs: M a multiple of 4 and
// both pointers 16-byte aligned.
void validate_block_scales(const Shape& s, const float* scale_a, const float* scale_b);

// A one-dimensional grid holds at most 2³¹ − 1 blocks.
void validate_grid(int64_t blocks);

// A valid problem that one kernel cannot run: a peer (peers/) whose library has a rule of its own,
// such as CUTLASS's TMA epilogue needing N % 8 == 0. Thrown before anything is launched; the
// message names the shape and the rule. The harness reports it with its own exit code, and the
// GPU tests skip that run, visibly, instead of failing it.
struct NotImplemented : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace matmul
