// The two element types every version supports. Accumulation is always fp32.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace matmul {

enum class DType { fp16, bf16 };

inline const char* dtype_name(DType t) { return t == DType::fp16 ? "fp16" : "bf16"; }

inline std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "fp16") return DType::fp16;
  if (s == "bf16") return DType::bf16;
  return std::nullopt;
}

inline constexpr std::size_t dtype_bytes = 2;  // both are 16-bit types

// The DType of an element type; any type but the two fails to compile.
template <typename T>
constexpr DType dtype_of_type() {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, "fp16 (__half) or bf16 (__nv_bfloat16)");
  return std::is_same_v<T, __half> ? DType::fp16 : DType::bf16;
}
template <typename T>
inline constexpr DType dtype_of = dtype_of_type<T>();

}  // namespace matmul
