// The C ABI of build/lib/libhopper_matmul.so (capi/hopper_matmul.h), linked as a caller links it:
// the rungs listed in ladder order, and every refusal a status with a message that names the value
// and the rule, before anything touches the GPU (so these run without one).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>
#include <thread>

#include "capi/hopper_matmul.h"

using Catch::Matchers::ContainsSubstring;

TEST_CASE("the library lists the rungs in ladder order") {
  REQUIRE(hm_version_count() >= 10);
  CHECK(std::string(hm_version_name(0)) == "v0_naive");
  bool has_v9 = false;
  for (int i = 0; i < hm_version_count(); ++i) has_v9 = has_v9 || std::string(hm_version_name(i)) == "v9_stream_k";
  CHECK(has_v9);
  CHECK(hm_version_name(-1) == nullptr);
  CHECK(hm_version_name(hm_version_count()) == nullptr);
}

TEST_CASE("an unknown rung is refused by name, with the list of rungs") {
  CHECK(hm_matmul("v99_none", HM_FP16, nullptr, nullptr, nullptr, 16, 16, 16, nullptr, nullptr) ==
        HM_UNKNOWN_VERSION);
  CHECK_THAT(hm_last_error(), ContainsSubstring("v99_none") && ContainsSubstring("v9_stream_k"));
  CHECK(hm_matmul(nullptr, HM_FP16, nullptr, nullptr, nullptr, 16, 16, 16, nullptr, nullptr) == HM_UNKNOWN_VERSION);
  CHECK_THAT(hm_last_error(), ContainsSubstring("NULL"));
}

TEST_CASE("a bad dtype, shape or pointer is HM_INVALID_ARGUMENT, the message naming it") {
  CHECK(hm_matmul("v9_stream_k", hm_dtype(7), nullptr, nullptr, nullptr, 16, 16, 16, nullptr, nullptr) ==
        HM_INVALID_ARGUMENT);
  CHECK_THAT(hm_last_error(), ContainsSubstring("dtype 7"));
  for (const char* rung : {"v0_naive", "v9_stream_k"}) {
    INFO(rung);
    CHECK(hm_matmul(rung, HM_BF16, nullptr, nullptr, nullptr, 16, 16, 12, nullptr, nullptr) == HM_INVALID_ARGUMENT);
    CHECK_THAT(hm_last_error(), ContainsSubstring("12"));
    CHECK(hm_matmul(rung, HM_FP16, nullptr, nullptr, nullptr, 0, 16, 16, nullptr, nullptr) == HM_INVALID_ARGUMENT);
    CHECK(hm_matmul(rung, HM_FP16, nullptr, nullptr, nullptr, 16, 16, 16, nullptr, nullptr) == HM_INVALID_ARGUMENT);
    CHECK(std::string(hm_last_error()) != "");
  }
  CHECK(hm_queue_create(nullptr) == HM_INVALID_ARGUMENT);
  CHECK_THAT(hm_last_error(), ContainsSubstring("NULL"));
}

TEST_CASE("the message is the calling thread's own") {
  CHECK(hm_matmul("v99_none", HM_FP16, nullptr, nullptr, nullptr, 16, 16, 16, nullptr, nullptr) ==
        HM_UNKNOWN_VERSION);
  std::string other;
  std::thread([&] { other = hm_last_error(); }).join();
  CHECK(other.empty());
  CHECK_THAT(hm_last_error(), ContainsSubstring("v99_none"));
}
