// Timelines on the GPU. In the normal build a recording stays empty: the kernels log nothing. In
// the trace build (cmake --preset trace) every version with roles logs each of them while staying
// correct, and its logs add up: a load per K-step, a compute per K-step and tile.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators_range.hpp>

#include <regex>

#include "common/harness/harness.h"
#include "common/harness/trace_file.h"
#include "tests/gpu.h"

using namespace matmul;
namespace trace = hopper::trace;

namespace {

size_t marks_of(const LaneLog& log, trace::State state) {
  return size_t(
      std::count_if(log.marks.begin(), log.marks.end(), [&](const trace::Mark& m) { return m.state == state; }));
}

// v2 on: the versions whose roles are traced (v0 and v1 have none).
bool has_roles(const Version& v) {
  std::smatch number;
  return std::regex_search(v.name, number, std::regex("^v(\\d+)_")) && std::stoi(number[1]) >= 2;
}

}  // namespace

TEST_CASE("traced, every role logs its K-steps and the result stays right; untraced, nothing is logged", "[versions]") {
  require_hopper_or_skip();
  const Version* v = GENERATE(from_range(tested_versions()));
  const DType t = GENERATE(DType::fp16, DType::bf16);
  const Shape s{1000, 704, 1000};  // K = 1000: 16 K-steps of 64, the last one ragged; N % 8 == 0 for the peers
  const int k_steps = 16;
  INFO(v->name << " " << dtype_name(t));
  Workspace w(t, s);
  TraceRecording recording(2);
  const Verification check = w.verify(*v);
  INFO(check.failure());
  CHECK(check.pass());
  const std::vector<LaneLog> logs = recording.read();
  if (!trace::enabled || !has_roles(*v)) {
    CHECK(logs.empty());
    return;
  }
  REQUIRE(!logs.empty());
  for (int block = 0; block < 2; ++block) {
    size_t loads = 0, computes = 0;  // a ping-pong consumer may get no tile of a small problem
    for (const LaneLog& log : logs) {
      if (log.block != block) continue;
      INFO("CTA " << block << "'s " << log.name());
      CHECK(log.dropped() == 0);
      CHECK(log.marks.back().state == trace::done);
      CHECK(std::is_sorted(log.marks.begin(), log.marks.end(),
                           [](const trace::Mark& a, const trace::Mark& b) { return a.clock < b.clock; }));
      const trace::State work = log.header.role == trace::producer ? trace::load : trace::compute;
      CHECK(marks_of(log, work) % k_steps == 0);
      (work == trace::load ? loads : computes) += marks_of(log, work);
    }
    INFO("CTA " << block);
    CHECK(computes > 0);
    if (loads > 0) CHECK(computes % loads == 0);  // every consumer that reads a stage computes on it
  }
  const std::string text = trace_json({v->name, t, s, query_device(), "test", "now"}, logs);
  CHECK(text.find("\"compute\"") != std::string::npos);
}
