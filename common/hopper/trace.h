// Timelines (the `trace` build, cmake -DMATMUL_TRACE=ON): what a traced kernel leaves in device
// memory, shared by the kernels (trace.cuh) and the host code that reads it back. One thread of
// each role keeps a log of the moments its role changes state; a mark is the state entered and
// the SM clock then. Two (SM clock, %globaltimer) pairs per log, taken at its start and end,
// turn clocks into nanoseconds on the host.
#pragma once
#include <cstddef>
#include <cstdint>

namespace hopper::trace {

#ifdef MATMUL_TRACE
inline constexpr bool enabled = true;
#else
inline constexpr bool enabled = false;
#endif

// What a role is doing from its mark to the next one: waiting on a stage's full or empty barrier,
// on another barrier (the block's, the other consumer's turn), issuing loads, computing (MMAs
// issued until they complete), storing (the epilogue). `done` ends a log.
enum State : uint32_t { wait_full, wait_empty, wait_other, load, compute, store, done };

// Whose log: the lone warpgroup of a version without roles, the producer, or consumer `index`.
enum Role : uint32_t { warpgroup, producer, consumer };

inline constexpr int lanes_per_cta = 3;  // the producer and at most two consumers

struct Mark {
  int64_t clock;
  uint32_t state;
  int32_t tile;  // the output tile the role works for, -1 when none
};

struct Log {
  uint32_t used;  // 0 until a role writes this log
  uint32_t role;
  uint32_t index;
  uint32_t sm;
  uint32_t count;  // marks made, stored or not: more than the capacity means some were dropped
  uint32_t padding;  // the clocks below start 8-byte aligned
  int64_t clock0, ns0, clock1, ns1;
  // followed by `capacity` Marks
};

// The logs of CTAs 0 .. ctas-1, lanes_per_cta each, `capacity` marks per log; logs == nullptr:
// no recording, and the kernels write nothing.
struct Buffer {
  unsigned char* logs = nullptr;
  int ctas = 0;
  int capacity = 0;
};

constexpr size_t log_bytes(int capacity) { return sizeof(Log) + size_t(capacity) * sizeof(Mark); }

// The buffer the next launches write into (host side; trace.cuh's attach() hands it to a kernel).
void set_active(const Buffer& buffer);
const Buffer& active();

}  // namespace hopper::trace
