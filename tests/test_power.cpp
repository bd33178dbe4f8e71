// The clock and power sampler: without NVML (no driver, as on CI) it reads nothing and says so;
// with it, what it reads is a plausible clock and power.
#include <catch2/catch_test_macros.hpp>

#include <chrono>
#include <thread>

#include "common/harness/power.h"

using namespace matmul;

TEST_CASE("a power sampler reads a plausible clock and power, or nothing at all") {
  PowerSampler sampler;
  sampler.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const PowerReading r = sampler.stop();
  if (r.samples == 0) {
    CHECK(r.sm_clock_mhz == std::nullopt);
  } else {
    REQUIRE(r.sm_clock_mhz);
    CHECK(*r.sm_clock_mhz >= 100);
    CHECK(*r.sm_clock_mhz <= 3000);
    if (r.power_w) {
      CHECK(*r.power_w > 10);
      CHECK(*r.power_w < 2000);
    }
  }
  // A second sampling round starts from nothing.
  sampler.start();
  CHECK(sampler.stop().samples >= 0);
}
