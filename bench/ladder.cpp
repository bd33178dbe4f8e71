// The ladder: every registered version, the peers (peers/: someone else's kernels, for reference)
// and cuBLAS, in one process, over square sizes and both dtypes; one progress line per run, a
// final table, and a results file for the plots and docs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "bench/all_kernels.h"
#include "common/harness/harness.h"

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

// Seconds a run of `ms`-long launches takes: the warm-up (cut off after a second), the two
// verification runs and the timed launches; cuBLAS's share is negligible next to a slow version.
double predicted_seconds(double ms, const TimingFlags& t) {
  return std::min(t.warmup * ms / 1e3, 1.0 + ms / 1e3) + (2 + t.iters) * ms / 1e3;
}

int ladder(int argc, char** argv) {
  const LadderOptions o = parse_ladder_options(std::vector<std::string>(argv + 1, argv + argc), kernel_names());
  if (o.help) {
    std::cout << ladder_usage(argv[0]);
    return exit_pass;
  }
  const std::vector<const Version*> versions = select_versions(o.versions);
  if (o.list) {
    for (const Version* v : versions)  // a peer's line says so: it is measured, not a rung
      std::printf("%-18s %s%s\n", v->name.c_str(), v->peer ? "[peer] " : "", v->technique.c_str());
    return exit_pass;
  }
  const DeviceInfo device = query_device();
  require_hopper(device);
  const std::string out = o.out.empty() ? "results/" + gpu_slug(device.name) + ".json" : o.out;
  std::printf("ladder on %s (%d SMs, SM clock up to %d MHz), %d warm-up + %d timed launches per run\n",
              device.name.c_str(), device.sm_count, device.sm_clock_mhz, o.timing.warmup, o.timing.iters);

  std::vector<int64_t> sizes = o.sizes;
  std::sort(sizes.begin(), sizes.end());
  const size_t total = o.dtypes.size() * sizes.size() * versions.size();

  Results results{device, git_commit(), utc_now(), {}, {}};
  std::map<std::pair<std::string, DType>, Seen> seen;
  size_t index = 0;
  for (DType t : o.dtypes) {
    for (int64_t s : sizes) {
      for (const Version* v : versions) {
        std::printf("[%2zu/%zu] %-4s %-8s %-18s ", ++index, total, dtype_name(t), cube(s).c_str(), v->name.c_str());
        std::fflush(stdout);
        if (auto it = seen.find({v->name, t}); it != seen.end()) {
          const double ms = it->second.ms * std::pow(double(s) / it->second.size, 3);
          const double predicted_s = predicted_seconds(ms, o.timing);
          if (predicted_s > o.budget_s) {
            char reason[160];
            std::snprintf(reason, sizeof reason, "skipped: predicted %.0f s (%.1f ms per launch at %s) > %.0f s budget",
                          predicted_s, it->second.ms, cube(it->second.size).c_str(), o.budget_s);
            std::printf("%s\n", reason);
            results.skipped.push_back({v->name, t, s, s, s, reason});
            continue;
          }
        }
        const auto start = std::chrono::steady_clock::now();
        // At the headline size each version also runs alone under a sustained load, then cuBLAS
        // (whose own row needs no second copy of that).
        const bool sustain = s == headline_size && v->name != cublas_version().name;
        const RunRecord r = benchmark(*v, t, {s, s, s}, o.timing, true, sustain ? o.sustain_s : 0);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("%7.1f TFLOPS %7.3fx cuBLAS  rel_err %.2e  %s  (%.1f s)\n", r.tflops, r.ratio_vs_cublas,
                    r.rel_err.value_or(0), *r.pass ? "PASS" : "FAIL", seconds);
        seen[{v->name, t}] = {s, r.ms_median};
        results.runs.push_back(r);
      }
    }
  }

  std::printf("\n%s\n", table_header().c_str());
  for (const RunRecord& r : results.runs) std::printf("%s\n", table_row(r).c_str());
  for (const RunRecord& r : results.runs) std::printf("%s", sustained_lines(r, device.sm_count).c_str());
  for (const SkippedRun& s : results.skipped)
    std::printf("%-18s %-17s %-5s %s\n", s.version.c_str(), cube(s.m).c_str(), dtype_name(s.dtype), s.reason.c_str());

  if (const auto dir = std::filesystem::path(out).parent_path(); !dir.empty()) std::filesystem::create_directories(dir);
  write_results(out, results);
  std::printf("\nwrote %s\n", out.c_str());

  for (const RunRecord& r : results.runs)
    if (!*r.pass) return exit_failed;
  return exit_pass;
}

}  // namespace
}  // namespace matmul

int main(int argc, char** argv) {
  return matmul::run_guarded("ladder", [&] { return matmul::ladder(argc, argv); });
}
