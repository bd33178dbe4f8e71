#include "common/problem.h"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace matmul {

namespace {

[[noreturn]] void refuse(const char* name, int64_t value, const char* rule) {
  throw std::invalid_argument(std::string(name) + " = " + std::to_string(value) + " is invalid: " + rule);
}

void check_pointer(const char* name, const void* p) {
  if (p == nullptr) throw std::invalid_argument(std::string("pointer ") + name + " is null");
  if (reinterpret_cast<uintptr_t>(p) % 16 != 0)
    throw std::invalid_argument(std::string("pointer ") + name +
                                " is not 16-byte aligned: TMA needs 16-byte aligned rows");
}

}  // namespace

void validate_shape(const Shape& s) {
  constexpr int64_t max_dim = std::numeric_limits<int32_t>::max();
  if (s.m < 1) refuse("M", s.m, "M must be at least 1");
  if (s.n < 1) refuse("N", s.n, "N must be at least 1");
  if (s.k < 8) refuse("K", s.k, "K must be at least 8");
  if (s.k % 8 != 0) refuse("K", s.k, "K must be a multiple of 8 (TMA needs a 16-byte row pitch)");
  if (s.m > max_dim) refuse("M", s.m, "M must be below 2^31");
  if (s.n > max_dim) refuse("N", s.n, "N must be below 2^31");
  if (s.k > max_dim) refuse("K", s.k, "K must be below 2^31");
}

void validate_operands(const void* a, const void* b, const void* c) {
  check_pointer("A", a);
  check_pointer("B", b);
  check_pointer("C", c);
}

void validate_fp8_shape(const Shape& s) {
  validate_shape(s);
  if (s.k % 16 != 0)
    refuse("K", s.k, "K must be a multiple of 16 for e4m3 inputs (a row of K bytes needs a 16-byte pitch)");
}

void validate_scales(const float* scale_a, const float* scale_b) {
  for (const auto& [name, p] : {std::pair{"scale_a", scale_a}, std::pair{"scale_b", scale_b}}) {
    if (p == nullptr) throw std::invalid_argument(std::string("pointer ") + name + " is null");
    if (reinterpret_cast<uintptr_t>(p) % alignof(float) != 0)
      throw std::invalid_argument(std::string("pointer ") + name + " is not 4-byte aligned");
  }
}

void validate_block_scales(const Shape& s, const float* scale_a, const float* scale_b) {
  if (s.m % 4 != 0)
    refuse("M", s.m, "M must be a multiple of 4 under block scaling (A's scales are copied in 16-byte runs)");
  for (const auto& [name, p] : {std::pair{"scale_a", scale_a}, std::pair{"scale_b", scale_b}})
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0)
      throw std::invalid_argument(std::string("pointer ") + name +
                                  " is not 16-byte aligned: block scales are copied in 16-byte runs");
}

void validate_grid(int64_t blocks) {
  if (blocks > std::numeric_limits<int32_t>::max())
    refuse("grid size", blocks, "the problem needs more than 2^31 - 1 thread blocks");
}

}  // namespace matmul
