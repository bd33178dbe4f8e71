// Problem validation, in the shared layer and through each version's and each peer's library API.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "common/problem.h"
#include "matmul_versions.h"
#include "v10_fp8/matmul.h"

using namespace matmul;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("valid shapes pass validation") {
  for (const Shape s : {Shape{1, 1, 8}, Shape{7, 13, 16}, Shape{8192, 8192, 8192}, Shape{2147483647, 1, 8}})
    CHECK_NOTHROW(validate_shape(s));
}

TEST_CASE("operands must be non-null and 16-byte aligned") {
  alignas(16) static char storage[64];
  CHECK_NOTHROW(validate_operands(storage, storage + 16, storage + 32));
  CHECK_THROWS_WITH(validate_operands(nullptr, storage, storage), "pointer A is null");
  CHECK_THROWS_WITH(validate_operands(storage, storage + 8, storage),
                    ContainsSubstring("pointer B is not 16-byte aligned"));
  CHECK_THROWS_WITH(validate_operands(storage, storage, storage + 2),
                    ContainsSubstring("pointer C is not 16-byte aligned"));
}

TEST_CASE("a grid over 2^31 - 1 blocks is refused") {
  CHECK_NOTHROW(validate_grid(2147483647));
  CHECK_THROWS_WITH(validate_grid(2147483648), ContainsSubstring("more than 2^31 - 1 thread blocks"));
}

// The library API refuses before any CUDA call, so these run without a GPU.
TEST_CASE("every version's API refuses invalid problems with the CLI's message") {
  alignas(16) static __half h[64];
  alignas(16) static __nv_bfloat16 b[64];
  std::vector<const Version*> all = registered_versions();
  for (const Version* peer : registered_peers()) all.push_back(peer);
  for (const Version* v : all) {
    INFO(v->name);
    const DType f = DType::fp16;
    CHECK_THROWS_WITH(v->run(f, h, h, h, 16, 16, 7, nullptr), "K = 7 is invalid: K must be at least 8");
    CHECK_THROWS_WITH(v->run(f, h, h, h, 16, 16, 20, nullptr), ContainsSubstring("K must be a multiple of 8"));
    CHECK_THROWS_WITH(v->run(DType::bf16, b, b, b, 0, 16, 16, nullptr), ContainsSubstring("M = 0 is invalid"));
    CHECK_THROWS_WITH(v->run(DType::bf16, b, b, b, 16, -1, 16, nullptr), ContainsSubstring("N = -1 is invalid"));
    CHECK_THROWS_WITH(v->run(f, nullptr, h, h, 16, 16, 16, nullptr), "pointer A is null");
    CHECK_THROWS_WITH(v->run(f, h, h + 1, h, 16, 16, 16, nullptr),
                      ContainsSubstring("pointer B is not 16-byte aligned"));
  }
}

// The FP8 rules, refused before any CUDA call: K a multiple of 16, the scales given, and under block
// scaling M a multiple of 4 and the scales 16-byte aligned.
TEST_CASE("v10_fp8 refuses invalid FP8 problems by name, both scalings") {
  alignas(16) static __nv_fp8_e4m3 e[64];
  alignas(16) static __nv_bfloat16 c[64];
  alignas(16) static float s[8];
  for (const auto scaling : {Scaling::tensor, Scaling::block}) {
    INFO(scaling_name(scaling));
    const Fp8MatmulFn f = v10_fp8::version.entry(scaling);
    CHECK_THROWS_WITH(f(e, e, c, 16, 16, 24, s, s, nullptr, nullptr),
                      ContainsSubstring("K = 24 is invalid: K must be a multiple of 16"));
    CHECK_THROWS_WITH(f(e, e, c, 16, 16, 7, s, s, nullptr, nullptr), "K = 7 is invalid: K must be at least 8");
    CHECK_THROWS_WITH(f(e, e, c, 16, 16, 16, nullptr, s, nullptr, nullptr), "pointer scale_a is null");
    CHECK_THROWS_WITH(f(e, e, c, 16, 16, 16, s, nullptr, nullptr, nullptr), "pointer scale_b is null");
    CHECK_THROWS_WITH(f(e, e + 1, c, 16, 16, 16, s, s, nullptr, nullptr),
                      ContainsSubstring("pointer B is not 16-byte aligned"));
  }
  const Fp8MatmulFn block = v10_fp8::version.entry(Scaling::block);
  CHECK_THROWS_WITH(block(e, e, c, 6, 16, 16, s, s, nullptr, nullptr),
                    ContainsSubstring("M = 6 is invalid: M must be a multiple of 4 under block scaling"));
  CHECK_THROWS_WITH(block(e, e, c, 8, 16, 16, s + 1, s, nullptr, nullptr),
                    ContainsSubstring("pointer scale_a is not 16-byte aligned"));
}

// A peer's own rule: a valid problem whose N is not a multiple of 8 is not implemented (CUTLASS's
// TMA store writes rows of C in 16-byte units), and the message names the shape and the rule.
TEST_CASE("a peer refuses a valid shape its library cannot run and names the shape and the rule") {
  alignas(16) static __half h[4096];
  alignas(16) static __nv_bfloat16 b[4096];
  for (const Version* v : registered_peers()) {
    INFO(v->name);
    CHECK(v->peer);
    CHECK_THROWS_AS(v->fp16(h, h, h, 16, 12, 16, nullptr), NotImplemented);
    CHECK_THROWS_WITH(v->bf16(b, b, b, 16, 12, 16, nullptr),
                      ContainsSubstring("16x12x16: N = 12 is not a multiple of 8"));
    CHECK_THROWS_WITH(v->fp16(h, h, h, 16, 12, 20, nullptr), ContainsSubstring("K must be a multiple of 8"));
  }
  for (const Version* v : registered_versions()) CHECK_FALSE(v->peer);
}
