// The trace build's host half: the --trace flags, and the trace file made from role logs (marks to
// events, clocks to nanoseconds, merged repeats, refusals). The logs here are made up; the GPU
// battery checks the ones real kernels write (tests/test_gpu.cpp, trace build).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <nlohmann/json.hpp>

#include "common/harness/cli.h"
#include "common/harness/trace_file.h"

using namespace matmul;
using Catch::Matchers::ContainsSubstring;
using json = nlohmann::json;
namespace trace = hopper::trace;

namespace {

// A closed log of CTA `block` whose clock runs at 2 ticks per ns from ns0, with marks at `ticks`.
LaneLog log_of(int block, trace::Role role, uint32_t index, int64_t ns0,
               std::vector<std::pair<int64_t, trace::State>> ticks, int32_t tile = 7) {
  LaneLog log;
  log.block = block;
  log.header.used = 1;
  log.header.role = role;
  log.header.index = index;
  log.header.sm = 3;
  log.header.clock0 = 1000;
  log.header.ns0 = ns0;
  log.header.clock1 = 1000 + 2 * 10000;
  log.header.ns1 = ns0 + 10000;
  for (const auto& [tick, state] : ticks) log.marks.push_back({1000 + tick, uint32_t(state), tile});
  log.header.count = uint32_t(log.marks.size());
  return log;
}

json traced(const std::vector<LaneLog>& logs) {
  const TraceInfo info{"v4_two_consumers", DType::bf16, {256, 512, 1024},
                       {"NVIDIA H200"},    "abc1234",   "2026-12-01T00:00:00Z"};
  return json::parse(trace_json(info, logs));
}

}  // namespace

TEST_CASE("trace: marks become events from one mark to the next, in ns from the earliest log's start") {
  const json t = traced({
      log_of(0, trace::producer, 0, 5000, {{0, trace::wait_empty}, {20, trace::load}, {60, trace::done}}),
      log_of(0, trace::consumer, 1, 4000,
             {{10, trace::wait_full}, {30, trace::compute}, {90, trace::store}, {100, trace::done}}),
  });
  CHECK(t["version"] == "v4_two_consumers");
  CHECK(t["dtype"] == "bf16");
  CHECK(t["m"] == 256);
  CHECK(t["n"] == 512);
  CHECK(t["k"] == 1024);
  CHECK(t["device"]["name"] == "NVIDIA H200");
  CHECK(t["timer"] == "globaltimer_ns");
  REQUIRE(t["ctas"].size() == 1);
  const json& cta = t["ctas"][0];
  CHECK(cta["block"] == 0);
  CHECK(cta["sm"] == 3);
  REQUIRE(cta["lanes"].size() == 2);
  // The producer started 1000 ns after the consumer, the origin; 2 ticks are 1 ns.
  CHECK(cta["lanes"][0] == json::parse(R"({"name": "producer", "events": [
      {"state": "wait", "start": 1000, "end": 1010, "tile": 7, "barrier": "empty"},
      {"state": "load", "start": 1010, "end": 1030, "tile": 7}]})"));
  CHECK(cta["lanes"][1] == json::parse(R"({"name": "consumer 2", "events": [
      {"state": "wait", "start": 5, "end": 15, "tile": 7, "barrier": "full"},
      {"state": "compute", "start": 15, "end": 45, "tile": 7},
      {"state": "store", "start": 45, "end": 50, "tile": 7}]})"));
}

TEST_CASE("trace: repeated states merge, CTAs stay apart, a version without roles is one warpgroup lane") {
  const json t = traced({
      log_of(0, trace::warpgroup, 0, 0,
             {{0, trace::wait_full},
              {4, trace::wait_full},
              {8, trace::compute},
              {12, trace::wait_other},
              {16, trace::done}}),
      log_of(1, trace::warpgroup, 0, 0, {{0, trace::load}, {2, trace::done}}, -1),
  });
  REQUIRE(t["ctas"].size() == 2);
  CHECK(t["ctas"][0]["lanes"][0] == json::parse(R"({"name": "warpgroup", "events": [
      {"state": "wait", "start": 0, "end": 4, "tile": 7, "barrier": "full"},
      {"state": "compute", "start": 4, "end": 6, "tile": 7},
      {"state": "wait", "start": 6, "end": 8, "tile": 7}]})"));
  CHECK(t["ctas"][1]["block"] == 1);
  CHECK(t["ctas"][1]["lanes"][0]["events"] == json::parse(R"([{"state": "load", "start": 0, "end": 1}])"));
}

TEST_CASE("trace: no log, an unclosed log and an unknown state are refused with a reason") {
  CHECK_THROWS_WITH(traced({}), ContainsSubstring("no role of v4_two_consumers wrote a log"));
  LaneLog open = log_of(2, trace::consumer, 0, 0, {{0, trace::compute}, {5, trace::done}});
  open.header.clock1 = 0;
  CHECK_THROWS_WITH(traced({open}), ContainsSubstring("CTA 2's consumer 1 log has no time span"));
  CHECK_THROWS_WITH(traced({log_of(0, trace::producer, 0, 0, {{0, trace::State(42)}, {5, trace::done}})}),
                    ContainsSubstring("unknown state 42"));
}

TEST_CASE("trace: a log counts the marks it could not keep") {
  LaneLog log = log_of(0, trace::producer, 0, 0, {{0, trace::load}, {5, trace::done}});
  log.header.count = 9;
  CHECK(log.dropped() == 7);
  CHECK(log.name() == "producer");
}

TEST_CASE("the --trace flag is taken by the trace build only; --trace-ctas is bounded") {
  const std::vector<std::string> args{"--trace", "timeline.json", "--trace-ctas", "4"};
  if (hopper::trace::enabled) {
    const Options o = parse_options(args);
    CHECK(o.trace == "timeline.json");
    CHECK(o.trace_ctas == 4);
  } else {
    CHECK_THROWS_WITH(parse_options(args), ContainsSubstring("--trace timeline.json is invalid: this binary was built "
                                                             "without tracing"));
  }
  CHECK_THROWS_WITH(parse_options({"--trace-ctas", "65"}),
                    ContainsSubstring("--trace-ctas 65 is invalid: must be between 1 and 64"));
  CHECK_THROWS_WITH(parse_options({"--trace-ctas", "0"}), ContainsSubstring("must be between 1 and 64"));
}
