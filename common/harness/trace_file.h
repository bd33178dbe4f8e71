// Timelines, host half of the trace build: a recording the traced kernels write into while it
// lives, and the trace file made from it (the format plots/timeline.py reads, docs/methodology.md).
#pragma once
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/harness/device_buffer.h"
#include "common/harness/gpu.h"
#include "common/hopper/trace.h"
#include "common/problem.h"

namespace matmul {

// One role's log as read back: where it ran, its header and the marks it kept.
struct LaneLog {
  int block = 0;
  hopper::trace::Log header{};
  std::vector<hopper::trace::Mark> marks;
  uint32_t dropped() const { return header.count - uint32_t(marks.size()); }  // marks past the capacity
  std::string name() const;  // "producer", "consumer 1", ... or "warpgroup" (one role does all)
};

// Room for the logs of CTAs 0 .. ctas-1, zeroed; the active buffer of the launches made while it
// lives (each launch rewrites the logs, so they hold the last one's).
class TraceRecording {
 public:
  // 65,536 marks: a persistent CTA at 16384³ (64 tiles of 256 K-steps, two marks per step) fits.
  explicit TraceRecording(int ctas, int capacity = 65536);
  ~TraceRecording();
  TraceRecording(const TraceRecording&) = delete;
  TraceRecording& operator=(const TraceRecording&) = delete;

  // The logs a role wrote, in CTA then lane order. Synchronises the device first.
  std::vector<LaneLog> read() const;

 private:
  hopper::trace::Buffer buffer_;
  DeviceBuffer memory_;
};

struct TraceInfo {
  std::string version;
  DType dtype = DType::fp16;
  Shape shape;
  DeviceInfo device;
  std::string git, date;
};

// Reads the recording back and writes its trace file to `path`, with a line on stdout saying so and
// a warning on stderr for each log that outgrew its capacity.
void write_trace(const std::string& path, const TraceInfo& info, const TraceRecording& recording);

// The trace file's text. A log's marks become events, each from its mark to the next; clocks
// become nanoseconds through the log's two (clock, %globaltimer) pairs, counted from the earliest
// log's start. Throws std::runtime_error when there is no log (the version has no roles to trace).
std::string trace_json(const TraceInfo& info, const std::vector<LaneLog>& logs);

}  // namespace matmul
