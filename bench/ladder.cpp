// The ladder: every registered version, the peers (peers/: someone else's kernels, for reference)
// and cuBLAS, in one process, over square sizes and both dtypes, the kernels of a size timed together;
// one progress line per run, a final table, and a results file for the plots and docs. With --suite llm,
// the Llama-3 layers instead (common/harness/llm_suite.h): a line per shape and a summary per kernel.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <numeric>

#include "bench/all_kernels.h"
#include "common/harness/bandwidth.h"
#include "common/harness/harness.h"
#include "common/harness/llm_suite.h"
#include "common/harness/stats.h"

namespace matmul {
namespace {

// `names` were checked by parse_ladder_options: each is one of all_kernels().
std::vector<const Version*> select_versions(const std::vector<std::string>& names) {
  if (names.empty()) return all_kernels();
  std::vector<const Version*> chosen;
  for (const Version* v : all_kernels()) {
    bool wanted = v->name == "cublas";  // the baseline always runs
    for (const std::string& name : names) wanted = wanted || name == v->name;
    if (wanted) chosen.push_back(v);
  }
  return chosen;
}

// Launch time seen for a (version, dtype) at the largest size so far: the n³ scaling of it
// predicts the next size, so a version too slow for a size is skipped instead of run.
struct Seen {
  int64_t size;
  double ms;
};

std::string cube(int64_t s) { return std::to_string(s) + "^3"; }

// Seconds a slow kernel's run takes: the warm-up rounds (none started after a second), the two
// verification runs and its timed launches (alone, below); the other kernels' share is negligible.
double predicted_seconds(double ms, const TimingFlags& t) {
  return std::min(t.warmup * ms / 1e3, 1.0 + ms / 1e3) + (2 + t.iters) * ms / 1e3;
}

// A kernel whose launch lasts this many of cuBLAS's is timed alone, not in the rounds of the others:
// there the GPU would idle through its launches between theirs, and they would be timed at a cool
// GPU's clock (beside v0 at 8192³ cuBLAS ran 18% faster than beside itself). Every rung and peer
// takes at most 3 cuBLAS launches at every size, v0 from 45 to 1500.
constexpr double apart_factor = 10;

// Where cuBLAS is among `kernels`: always there, since the ladder never skips it.
size_t cublas_index(const std::vector<const Version*>& kernels) {
  return std::find(kernels.begin(), kernels.end(), &cublas_version()) - kernels.begin();
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double seconds_of(const std::vector<float>& ms) { return std::accumulate(ms.begin(), ms.end(), 0.0) / 1e3; }

// One kernel of a size: its record, and the seconds its own work took (verification, launches,
// sustained load).
struct Run {
  const Version* version;
  RunRecord record;
  double seconds = 0;
  std::string skipped;  // why it did not run, else empty
};

// Every kernel of one dtype and size, cuBLAS among them: each verified, then timed in rounds that
// launch each once, in ladder order, so that every ratio of the size has the same cuBLAS launches
// for denominator and the ratios rank the kernels as their times do. A kernel far slower than
// cuBLAS is timed alone; its ratio has the same denominator. `before` goes ahead of every launch,
// untimed (timing.h).
void measure(Workspace& w, std::vector<Run>& runs, const TimingFlags& t, const Launch& before = {}) {
  std::vector<Run*> measured;
  for (Run& run : runs) {
    if (!run.skipped.empty()) continue;
    const auto start = std::chrono::steady_clock::now();
    w.new_inputs();  // a fresh seed for each kernel, as when each had a Workspace of its own
    run.record = checked_record(w, *run.version, true);
    run.seconds = seconds_since(start);
    measured.push_back(&run);
  }
  const auto kernels_of = [](const std::vector<Run*>& of) {
    std::vector<const Version*> kernels;
    for (const Run* run : of) kernels.push_back(run->version);
    return kernels;
  };
  // The warm-up rounds of every kernel also say how long each takes.
  const Samples warm = w.warm_up(kernels_of(measured), std::max(1, t.warmup), before);
  std::vector<double> warm_ms;
  for (size_t i = 0; i < measured.size(); ++i) {
    measured[i]->seconds += seconds_of(warm[i]);
    warm_ms.push_back(summarize(warm[i]).median);
  }
  const double cublas_warm_ms = warm_ms[cublas_index(kernels_of(measured))];
  std::vector<Run*> together, apart;
  for (size_t i = 0; i < measured.size(); ++i)
    (warm_ms[i] > apart_factor * cublas_warm_ms ? apart : together).push_back(measured[i]);

  std::vector<TimedRounds> alone;
  for (Run* run : apart) {
    alone.push_back(w.time_rounds({run->version}, t.iters, before));
    run->seconds += seconds_of(alone.back().ms[0]);
  }
  const std::vector<const Version*> kernels = kernels_of(together);
  // The GPU idled through the slow launches: the others warm up again, for a whole second, since
  // NVML's power reading is a mean over the last second (at 8192³, after v0 and a quarter second
  // of warm-up, the rounds read 435 W; after a second, 697).
  if (!apart.empty()) {
    const Samples again = w.warm_up(kernels, std::numeric_limits<int>::max(), before);
    for (size_t i = 0; i < together.size(); ++i) together[i]->seconds += seconds_of(again[i]);
  }
  // The sampled clock and power are means over the whole round-robin: the clock all its kernels ran
  // at together, and the power they drew together, not any one kernel's.
  const TimedRounds rounds = w.time_rounds(kernels, t.iters, before);
  const double cublas_ms = summarize(rounds.ms[cublas_index(kernels)]).median;
  for (size_t i = 0; i < together.size(); ++i) {
    together[i]->seconds += seconds_of(rounds.ms[i]);
    set_times(together[i]->record, rounds.ms[i], cublas_ms, rounds.power);
  }
  for (size_t i = 0; i < apart.size(); ++i) set_times(apart[i]->record, alone[i].ms[0], cublas_ms, alone[i].power);
}

// The results file, written (its folder made first), and the exit code: a failed run fails the whole.
int finish(const std::string& out, const Results& results) {
  if (const auto dir = std::filesystem::path(out).parent_path(); !dir.empty()) std::filesystem::create_directories(dir);
  write_results(out, results);
  std::printf("\nwrote %s\n", out.c_str());
  for (const RunRecord& r : results.runs)
    if (!*r.pass) return exit_failed;
  return exit_pass;
}

// One shape of the LLM suite, once its kernels are measured: cuBLAS's time, with W's bandwidth where
// the run records it (else its TFLOPS), the best and the worst of the other kernels against it, the verdict.
void print_shape(size_t index, size_t total, const std::vector<Run>& runs, double seconds) {
  const auto is_cublas = [](const Run& run) { return run.version == &cublas_version(); };
  const RunRecord& base = std::find_if(runs.begin(), runs.end(), is_cublas)->record;
  std::printf("[%3zu/%zu] %-4s m=%-4lld n=%-5lld k=%-5lld %-11s cuBLAS %8.4f ms", index, total, dtype_name(base.dtype),
              (long long)base.m, (long long)base.n, (long long)base.k, layer_name(base.n, base.k).c_str(),
              base.ms_median);
  if (base.weight_gbps)
    std::printf(" %5.2f TB/s of W", *base.weight_gbps / 1e3);
  else
    std::printf(" %6.1f TFLOPS", base.tflops);
  const RunRecord *best = nullptr, *worst = nullptr;
  std::string failed;
  for (const Run& run : runs) {
    const RunRecord& r = run.record;
    if (!*r.pass) failed += (failed.empty() ? "" : ", ") + r.version;
    if (is_cublas(run)) continue;
    if (!best || r.ratio_vs_cublas > best->ratio_vs_cublas) best = &r;
    if (!worst || r.ratio_vs_cublas < worst->ratio_vs_cublas) worst = &r;
  }
  if (best)
    std::printf("  best %s %.3fx  worst %s %.3fx", best->version.c_str(), best->ratio_vs_cublas, worst->version.c_str(),
                worst->ratio_vs_cublas);
  std::printf("  %s  (%.1f s)\n", failed.empty() ? "PASS" : ("FAIL: " + failed).c_str(), seconds);
}

void print_summary(const std::vector<RunRecord>& runs, double hbm_gbps) {
  std::printf(
      "\nper dtype and kernel, over the shapes: the geometric mean of the ratio to cuBLAS, the worst shape, and the\n"
      "lowest bandwidth of W at M <= %lld on the layers of %.0f MB or more: its share of the HBM read limit (%.2f TB/s),\n"
      "its shape, and what our read kernel reaches over that layer's bytes alone, timed alike\n",
      (long long)summary_max_m, large_layer_bytes / 1e6, hbm_gbps / 1e3);
  std::printf("%-5s %-26s %8s %8s  %-26s %s\n", "dtype", "kernel", "geomean", "worst", "worst at m x n x k",
              "min W TB/s");
  for (const SuiteSummary& s : summarize_suite(runs)) {
    char shape[64], tbps[96] = "-";
    std::snprintf(shape, sizeof shape, "%lldx%lldx%lld %s", (long long)s.worst_shape.m, (long long)s.worst_shape.n,
                  (long long)s.worst_shape.k, layer_name(s.worst_shape.n, s.worst_shape.k).c_str());
    if (s.min_weight_tbps)
      std::snprintf(tbps, sizeof tbps, "%.2f (%.0f%%) at %lldx%lldx%lld %s, read %.2f", *s.min_weight_tbps,
                    100 * *s.min_weight_tbps * 1e3 / hbm_gbps, (long long)s.min_weight_shape.m,
                    (long long)s.min_weight_shape.n, (long long)s.min_weight_shape.k,
                    layer_name(s.min_weight_shape.n, s.min_weight_shape.k).c_str(), s.min_weight_read_tbps.value_or(NAN));
    std::printf("%-5s %-26s %7.3fx %7.3fx  %-26s %s\n", dtype_name(s.dtype), s.version.c_str(), s.geomean_ratio,
                s.worst_ratio, shape, tbps);
  }
}

// --suite llm: each dtype, M and layer, its kernels measured together as a size's are in the ladder,
// each launch after an L2 flush; the HBM read limit first.
int llm_suite(const LadderOptions& o, const std::vector<const Version*>& kernels, const DeviceInfo& device,
              const std::string& out) {
  // A layer's weights fit in the L2 (33 MB for 8B's o, 50 MB for its qkv; the H200 has 60 MiB): unflushed,
  // every launch but the first would read W from the L2, as no model does (between two uses of a layer
  // it reads every other layer's weights), and a decode-size GEMM, bound by W's bandwidth, would be
  // timed at the L2's bandwidth instead of HBM's.
  const L2Flush flush;
  const Launch before = [&](cudaStream_t s) { flush(s); };
  std::printf(
      "LLM suite on %s (%d SMs): the linear layers of Llama-3 8B and 70B, %zu kernels, the L2 flushed (%zu MiB read) "
      "before every launch, %d warm-up + %d timed rounds per shape, each launching every kernel once\n",
      device.name.c_str(), device.sm_count, kernels.size(), flush.bytes() >> 20, o.timing.warmup, o.timing.iters);

  Results results{device, git_commit(), utc_now(), {}, {}};
  results.hbm_read_gbps = hbm_read_gbps(flush, o.timing);
  std::printf("HBM read limit: %.0f GB/s (our read kernel over %zu GiB, the median of %d reads)\n",
              *results.hbm_read_gbps, hbm_read_bytes >> 30, o.timing.iters);
  // The same read over each layer's W: a reference for a launch of that size, not a bound (cuBLAS,
  // with less fixed cost, passes it by 7.5% on the 50 MB layer in results/h200_llm.json).
  std::vector<double> layer_read_gbps;
  for (const Layer& layer : llm_layers) {
    const double bytes = weight_bytes(layer.n, layer.k);
    layer_read_gbps.push_back(hbm_read_gbps(flush, o.timing, size_t(bytes)));
    std::printf("  over %-11s W, %6.1f MB: %.0f GB/s\n", layer.name, bytes / 1e6, layer_read_gbps.back());
  }
  const size_t total = o.dtypes.size() * std::size(llm_tokens) * std::size(llm_layers);
  size_t index = 0;
  for (DType t : o.dtypes) {
    for (int64_t m : llm_tokens) {
      for (size_t l = 0; l < std::size(llm_layers); ++l) {
        const Layer& layer = llm_layers[l];
        const auto start = std::chrono::steady_clock::now();
        std::vector<Run> runs;
        for (const Version* v : kernels) runs.push_back({v, {}, 0, ""});
        Workspace w(t, {m, layer.n, layer.k});
        measure(w, runs, o.timing, before);
        for (Run& run : runs) {
          if (m <= bandwidth_max_m) {
            run.record.weight_gbps = weight_gbps(run.record);
            run.record.read_gbps = layer_read_gbps[l];
          }
          results.runs.push_back(run.record);
        }
        print_shape(++index, total, runs, seconds_since(start));
        std::fflush(stdout);
      }
    }
  }
  print_summary(results.runs, *results.hbm_read_gbps);
  return finish(out, results);
}

int ladder(int argc, char** argv) {
  const LadderOptions o = parse_ladder_options(std::vector<std::string>(argv + 1, argv + argc), kernel_names());
  if (o.help) {
    std::cout << ladder_usage(argv[0]);
    return exit_pass;
  }
  const std::vector<const Version*> versions =
      o.suite.empty() ? select_versions(o.versions) : llm_kernels(all_kernels(), o.versions);
  if (o.list) {
    for (const Version* v : versions)  // a peer's line says so: it is measured, not a rung
      std::printf("%-18s %s%s\n", v->name.c_str(), v->peer ? "[peer] " : "", v->technique.c_str());
    return exit_pass;
  }
  const DeviceInfo device = query_device();
  require_hopper(device);
  const std::string out = ladder_results_file(o, gpu_slug(device.name));
  if (!o.suite.empty()) return llm_suite(o, versions, device, out);
  std::printf(
      "ladder on %s (%d SMs, SM clock up to %d MHz), %d warm-up + %d timed rounds per size, "
      "each launching every kernel once\n",
      device.name.c_str(), device.sm_count, device.sm_clock_mhz, o.timing.warmup, o.timing.iters);

  std::vector<int64_t> sizes = o.sizes;
  std::sort(sizes.begin(), sizes.end());
  const size_t total = o.dtypes.size() * sizes.size() * versions.size();

  Results results{device, git_commit(), utc_now(), {}, {}};
  std::map<std::pair<std::string, DType>, Seen> seen;
  size_t index = 0;
  for (DType t : o.dtypes) {
    for (int64_t s : sizes) {
      std::vector<Run> runs;
      for (const Version* v : versions) {
        Run run{v, {}, 0, ""};
        const auto it = seen.find({v->name, t});
        // cuBLAS is the denominator of every ratio of the size: it always runs.
        if (it != seen.end() && v != &cublas_version()) {
          const double ms = it->second.ms * std::pow(double(s) / it->second.size, 3);
          const double predicted_s = predicted_seconds(ms, o.timing);
          if (predicted_s > o.budget_s) {
            char reason[160];
            std::snprintf(reason, sizeof reason, "skipped: predicted %.0f s (%.1f ms per launch at %s) > %.0f s budget",
                          predicted_s, it->second.ms, cube(it->second.size).c_str(), o.budget_s);
            run.skipped = reason;
          }
        }
        runs.push_back(run);
      }
      Workspace w(t, {s, s, s});
      measure(w, runs, o.timing);
      for (Run& run : runs) {
        const Version& v = *run.version;
        std::printf("[%2zu/%zu] %-4s %-8s %-18s ", ++index, total, dtype_name(t), cube(s).c_str(), v.name.c_str());
        if (!run.skipped.empty()) {
          std::printf("%s\n", run.skipped.c_str());
          results.skipped.push_back({v.name, t, s, s, s, run.skipped});
          continue;
        }
        // At the headline size each kernel also runs alone under a sustained load, then cuBLAS
        // (whose own row needs no second copy of that).
        if (s == headline_size && &v != &cublas_version() && o.sustain_s > 0) {
          std::fflush(stdout);
          const auto start = std::chrono::steady_clock::now();
          set_sustained(run.record, w, v, o.sustain_s);
          run.seconds += seconds_since(start);
        }
        const RunRecord& r = run.record;
        std::printf("%7.1f TFLOPS %7.3fx cuBLAS  rel_err %.2e  %s  (%.1f s)\n", r.tflops, r.ratio_vs_cublas,
                    r.rel_err.value_or(0), *r.pass ? "PASS" : "FAIL", run.seconds);
        seen[{v.name, t}] = {s, r.ms_median};
        results.runs.push_back(r);
      }
      std::fflush(stdout);
    }
  }

  std::printf("\n%s\n", table_header().c_str());
  for (const RunRecord& r : results.runs) std::printf("%s\n", table_row(r).c_str());
  for (const RunRecord& r : results.runs) std::printf("%s", sustained_lines(r, device.sm_count).c_str());
  for (const SkippedRun& s : results.skipped)
    std::printf("%-18s %-17s %-5s %s\n", s.version.c_str(), cube(s.m).c_str(), dtype_name(s.dtype), s.reason.c_str());

  return finish(out, results);
}

}  // namespace
}  // namespace matmul

int main(int argc, char** argv) {
  return matmul::run_guarded("ladder", [&] { return matmul::ladder(argc, argv); });
}
