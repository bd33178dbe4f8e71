// What a valid problem is (docs/design.md, "Valid input"): C = A·Bᵀ with A m×k, B n×k, C m×n, all row-major.
// Every entry point checks here first; a violation throws std::invalid_argument whose message
// names the value and the rule, before anything is launched.
#pragma once
#include <cstdint>

namespace matmul {

struct Shape {
  int64_t m, n, k;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};

// m ≥ 1, n ≥ 1, k ≥ 8 and a multiple of 8, each below 2³¹.
void validate_shape(const Shape& s);

// Non-null and 16-byte aligned: TMA reads rows at 16-byte granularity.
void validate_operands(const void* a, const void* b, const void* c);

// A one-dimensional grid holds at most 2³¹ − 1 blocks.
void validate_grid(int64_t blocks);

}  // namespace matmul
