// The harness: check a version against the cuBLAS reference, time it against cuBLAS in the same
// process, report. Used by every version binary, the ladder and the GPU tests.
#pragma once
#include <functional>
#include <string>

#include "common/harness/cli.h"
#include "common/harness/device_buffer.h"
#include "common/harness/results.h"
#include "common/harness/timing.h"
#include "common/harness/verify.h"
#include "common/hopper/tile_queue.h"
#include "common/problem.h"
#include "common/version.h"

namespace matmul {

// Rounds of launches timed together, with the SM clock and the board power sampled meanwhile: means
// over the launches of every kernel of the rounds, which cannot say which kernel drew the power.
struct TimedRounds {
  Samples ms;  // one vector per kernel, in the order given
  PowerReading power;
};

// Device buffers for one problem: A and B, the version's C between two guard bands, a copy of
// C for the rerun comparison, cuBLAS's C, and the fp32 reference; and the tile queue that the
// persistent rungs draw from (their fastest form), made on the device current at construction.
// Launches that share the queue are stream-ordered: a Workspace is used by one stream at a time.
class Workspace {
 public:
  // queued false: the persistent rungs get no queue and walk their static stride (--no-queue).
  Workspace(DType t, Shape s, bool queued = true);

  DType dtype() const { return dtype_; }
  Shape shape() const { return shape_; }

  // Fresh random A and B (a new seed every call) and their fp32 reference.
  void new_inputs();

  // Runs `v` twice on the current inputs, each time into a freshly poisoned C, and checks
  // the result, the guard bands and that both runs agree bit for bit.
  Verification verify(const Version& v);

  // Rounds of `kernels`, each launching every one of them once, in order (timing.h's warm_up and
  // time_rounds, `before` each launch and outside its time); cuBLAS writes its own C, every other
  // kernel the version's.
  Samples warm_up(const std::vector<const Version*>& kernels, int rounds, const Launch& before = {});
  TimedRounds time_rounds(const std::vector<const Version*>& kernels, int rounds, const Launch& before = {});

  // `warmup` + `iters` launches of `v`, each paired with one of `other` (into cuBLAS's C).
  Timings time_against(const Version& v, const Version& other, const TimingFlags& t);

  // `v` alone (the version or cuBLAS) under a sustained load of about `seconds`.
  SustainedRun sustain(const Version& v, double seconds);

  // C as the last run left it (m·n elements of the dtype).
  const void* c() const { return c_data(); }
  const void* a() const { return a_.get(); }
  const void* b() const { return b_.get(); }

 private:
  void run(const Version& v, void* c, cudaStream_t stream = nullptr) const;
  std::vector<Launch> launches(const std::vector<const Version*>& kernels) const;
  void* c_of(const Version& v) const;  // where `v` writes when timed: cuBLAS's C for cuBLAS, else C
  void* c_data() const;  // C itself, past the guard band in front of it
  void poison_c();
  int64_t guard_damage() const;

  DType dtype_;
  Shape shape_;
  DeviceBuffer a_, b_, c_, c_first_, c_cublas_, ref_;
  mutable hopper::TileQueue queue_;  // zero between launches: running a version leaves it as it was
  bool queued_;
};

// Verifies (unless check is false) on fresh inputs, then times against cuBLAS, sampling the SM
// clock and the board power meanwhile; with sustain_s > 0, then runs the version alone and cuBLAS
// alone for sustain_s seconds each, for their clock, power and TFLOPS per watt under load.
RunRecord benchmark(const Version& v, DType t, Shape s, const TimingFlags& timing, bool check, double sustain_s = 0,
                    bool queued = true);

// benchmark() in parts, for the ladder, which times every kernel of a problem in the same rounds.
// `v`'s record on `w`'s problem, verified on its current inputs unless `check` is false (a failure
// is said on stderr), not yet timed:
RunRecord checked_record(Workspace& w, const Version& v, bool check);
// its times from its launches, against the median of the cuBLAS launches they are compared with,
// and the clock and the power read meanwhile;
void set_times(RunRecord& r, const std::vector<float>& ms, double cublas_ms_median, const PowerReading& power);
// `v` alone under a sustained load of `seconds`, then cuBLAS alone as long.
void set_sustained(RunRecord& r, Workspace& w, const Version& v, double seconds);

std::string table_header();
std::string table_row(const RunRecord& r);
// Two lines (the version, then cuBLAS) for a run with a sustained part, else nothing.
std::string sustained_lines(const RunRecord& r, int sm_count);

// The whole of a version binary's main(): parse, check the GPU, benchmark, print, exit code.
int run_cli(const Version& v, int argc, char** argv);

// Runs body and maps exceptions to one line on stderr and an exit code: bad input 2,
// no usable GPU 3, a shape the kernel cannot run 4 (NotImplemented: a peer's rule), anything else 1.
int run_guarded(const std::string& program, const std::function<int()>& body);

}  // namespace matmul
