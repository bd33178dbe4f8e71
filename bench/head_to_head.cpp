// Two kernels head to head: each launch of one paired with a launch of the other, in one process.
// Under the power cap a kernel sets the clock for whatever runs beside it, so the ratio of each to
// its own cuBLAS launches can rank two kernels wrongly; timed against each other, both run at the
// clock they make together (docs/methodology.md, "Head to head").
#include <cstdio>
#include <iostream>

#include "bench/all_kernels.h"
#include "common/harness/harness.h"
#include "common/harness/stats.h"

namespace matmul {
namespace {

const Version& find(const std::string& name) {
  for (const Version* v : all_kernels())
    if (v->name == name) return *v;
  throw std::invalid_argument("no kernel named " + name);  // parse_head_to_head_options checked
}

int head_to_head(int argc, char** argv) {
  const HeadToHeadOptions o =
      parse_head_to_head_options(std::vector<std::string>(argv + 1, argv + argc), kernel_names());
  if (o.help) {
    std::cout << head_to_head_usage(argv[0]);
    return exit_pass;
  }
  const Version& a = find(o.versions[0]);
  const Version& b = find(o.versions[1]);
  const DeviceInfo device = query_device();
  require_hopper(device);
  std::printf("A = %s, B = %s on %s; %d rounds of %d pairs, alternating which goes first; git %s\n", a.name.c_str(),
              b.name.c_str(), device.name.c_str(), o.rounds, o.timing.iters, git_commit().c_str());
  std::printf("%-5s %-6s %5s  %10s %10s  %s\n", "dtype", "size", "round", "A ms", "B ms", "B/A (above 1: A faster)");
  bool passed = true;
  for (DType t : o.dtypes) {
    for (int64_t s : o.sizes) {
      Workspace w(t, {s, s, s});
      for (const Version* v : {&a, &b}) {
        const Verification check = w.verify(*v);
        if (!check.pass()) std::fprintf(stderr, "%s: FAIL: %s\n", v->name.c_str(), check.failure().c_str());
        passed = passed && check.pass();
      }
      std::vector<float> ratios;
      for (int round = 0; round < o.rounds; ++round) {
        const bool a_first = round % 2 == 0;
        const Timings times = a_first ? w.time_against(a, b, o.timing) : w.time_against(b, a, o.timing);
        const double a_ms = summarize(a_first ? times.version_ms : times.baseline_ms).median;
        const double b_ms = summarize(a_first ? times.baseline_ms : times.version_ms).median;
        ratios.push_back(float(b_ms / a_ms));
        std::printf("%-5s %-6lld %5d  %10.4f %10.4f  %.4f%s\n", dtype_name(t), (long long)s, round + 1, a_ms, b_ms,
                    b_ms / a_ms, a_first ? "" : "  (B first)");
      }
      std::printf("%-5s %-6lld %5s  %21s  %.4f  median of %d rounds\n", dtype_name(t), (long long)s, "all", "",
                  summarize(ratios).median, o.rounds);
      std::fflush(stdout);
    }
  }
  return passed ? exit_pass : exit_failed;
}

}  // namespace
}  // namespace matmul

int main(int argc, char** argv) {
  return matmul::run_guarded("head_to_head", [&] { return matmul::head_to_head(argc, argv); });
}
