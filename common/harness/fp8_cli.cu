#include "common/harness/fp8_cli.h"

#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/check.h"
#include "common/harness/cli.h"
#include "common/harness/cublaslt_fp8.h"
#include "common/harness/fill.h"
#include "common/harness/fp8.h"
#include "common/harness/gpu.h"
#include "common/harness/power.h"
#include "common/harness/results.h"
#include "common/harness/stats.h"
#include "common/harness/timing.h"
#include "common/hopper/tile_queue.h"

namespace matmul {

namespace {

double tflops(Shape s, double ms) { return s.flops() / (ms * 1e-3) / 1e12; }

// Every row_step-th row checked: about 2^33 multiply-adds for the fp64 reference, whatever the size.
int row_step_for(Shape s) {
  const double work = double(s.m) * double(s.n) * double(s.k);
  return int(std::max(1.0, std::ceil(work / 0x1p33)));
}

// The version and cuBLASLt on one problem, with and without its promotion. cuBLASLt may have no
// algorithm for a small or ragged shape (its FP8 rules are stricter than the version's): then the
// version runs alone. A block-scaled problem is timed against cuBLASLt's block modes where it has
// them for the shape, else against its per-tensor mode (the same work; its C is then not compared),
// and against the version's own per-tensor form: the block form's cost, both timed alike.
struct Kernels {
  Fp8Problem& p;
  const Fp8Version& v;
  hopper::TileQueue queue;
  std::unique_ptr<CublasLtFp8> lt, lt_fast;
  bool same_product = false;  // cuBLASLt computes the problem's product (its C can be compared)
  Kernels(Fp8Problem& problem, const Fp8Version& version) : p(problem), v(version) {
    for (Scaling mode : {problem.scaling(), Scaling::tensor}) {
      try {
        lt = std::make_unique<CublasLtFp8>(problem, false, mode);
        lt_fast = std::make_unique<CublasLtFp8>(problem, true, mode);
        same_product = mode == problem.scaling();
        return;
      } catch (const NotImplemented& e) {
        std::printf("%s\n", e.what());
      }
    }
    std::printf("%s runs alone\n", v.name.c_str());
  }
  void ours(cudaStream_t s) { run(p.scaling(), s); }
  // The version's per-tensor form on a block-scaled problem, for timing only: the same work, each
  // tensor's first block scale taken as its one scale.
  void tensor_form(cudaStream_t s) { run(Scaling::tensor, s); }
  bool times_tensor_form() const { return p.scaling() == Scaling::block; }
  // Ours first, then cuBLASLt's two modes where it runs, then (block rows) the per-tensor form.
  std::vector<Launch> launches() {
    std::vector<Launch> l{[this](cudaStream_t s) { ours(s); }};
    if (lt) {
      l.push_back([this](cudaStream_t s) { lt->run(s); });
      l.push_back([this](cudaStream_t s) { lt_fast->run(s); });
    }
    if (times_tensor_form()) l.push_back([this](cudaStream_t s) { tensor_form(s); });
    return l;
  }

 private:
  void run(Scaling scaling, cudaStream_t s) {
    const Shape sh = p.shape();
    v.entry(scaling)(p.a(), p.b(), p.c(), int(sh.m), int(sh.n), int(sh.k), p.scale_a(), p.scale_b(), s, &queue);
  }
};

// The error of one launch, into a freshly poisoned C.
Fp8Problem::Error error_of(Fp8Problem& p, const Launch& launch) {
  p.poison_c();
  launch(nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  return p.compare();
}

int64_t rerun_differences(Fp8Problem& p, Kernels& k) {
  const size_t bytes = sizeof(__nv_bfloat16) * size_t(p.shape().m * p.shape().n);
  std::vector<unsigned char> first(bytes), second(bytes);
  for (auto* out : {&first, &second}) {
    p.poison_c();
    k.ours(nullptr);
    CUDA_CHECK(cudaMemcpy(out->data(), p.c(), bytes, cudaMemcpyDeviceToHost));
  }
  int64_t differences = 0;
  for (size_t i = 0; i < bytes; i += 2) differences += std::memcmp(&first[i], &second[i], 2) != 0;
  return differences;
}

nlohmann::json error_json(const Fp8Problem::Error& e) {
  return {{"rel_err", e.rel_err},
          {"rel_err_vs_bf16", e.rel_err_vs_bf16},
          {"unwritten", e.unwritten},
          {"nonfinite", e.nonfinite}};
}

// One shape and scaling: verified, then timed against cuBLASLt (with and without its promotion).
bool bench(const Fp8Version& v, Shape s, Scaling scaling, const Fp8Options& o, nlohmann::json& rows) {
  Fp8Problem p(s, scaling);
  p.new_inputs(fresh_seed(), 2, scaling == Scaling::block ? 16 : 0);
  Kernels k(p, v);
  nlohmann::json row = {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"scaling", scaling_name(scaling)}};
  bool pass = true;
  if (o.check) {
    p.compute_reference(row_step_for(s));
    const auto ours = error_of(p, [&](cudaStream_t st) { k.ours(st); });
    const int64_t reruns = rerun_differences(p, k);
    pass = ours.unwritten == 0 && ours.nonfinite == 0 && ours.rel_err <= fp8_tolerance(scaling) && reruns == 0;
    std::printf(
        "check %s %s %lldx%lldx%lld: rel err %.2e (vs bf16-rounded exact %.2e), unwritten %lld, "
        "rerun differences %lld: %s\n",
        v.name.c_str(), scaling_name(scaling), (long long)s.m, (long long)s.n, (long long)s.k, ours.rel_err,
        ours.rel_err_vs_bf16, (long long)ours.unwritten, (long long)reruns, pass ? "PASS" : "FAIL");
    row["error"] = error_json(ours);
    row["rerun_differences"] = reruns;
    if (k.same_product) {
      const auto lt = error_of(p, [&](cudaStream_t st) { k.lt->run(st); });
      const auto fast = error_of(p, [&](cudaStream_t st) { k.lt_fast->run(st); });
      std::printf("check cuBLASLt: rel err %.2e (vs bf16-rounded exact %.2e); fast accum %.2e (%.2e)\n", lt.rel_err,
                  lt.rel_err_vs_bf16, fast.rel_err, fast.rel_err_vs_bf16);
      row["cublaslt_error"] = error_json(lt);
      row["cublaslt_fast_error"] = error_json(fast);
    }
  }
  const auto launches = k.launches();
  warm_up(launches, o.timing.warmup);
  PowerSampler sampler;
  sampler.start();
  const Samples ms = time_rounds(launches, o.timing.iters);
  const PowerReading power = sampler.stop();
  const double ours = summarize(ms[0]).median;
  std::printf("%-8s %-6s %5lldx%5lldx%5lld  %7.1f TFLOPS", v.name.c_str(), scaling_name(scaling), (long long)s.m,
              (long long)s.n, (long long)s.k, tflops(s, ours));
  row["ms"] = ours;
  row["tflops"] = tflops(s, ours);
  if (k.lt) {
    const double lt = summarize(ms[1]).median, fast = summarize(ms[2]).median;
    std::printf("  cuBLASLt %7.1f (%.3fx)  fast accum %7.1f (%.3fx)", tflops(s, lt), lt / ours, tflops(s, fast),
                fast / ours);
    row["cublaslt_ms"] = lt;
    row["cublaslt_fast_ms"] = fast;
    row["ratio_to_cublaslt"] = lt / ours;
    row["ratio_to_cublaslt_fast"] = fast / ours;
    row["cublaslt_scaling"] = k.same_product ? scaling_name(scaling) : "tensor";
  }
  if (k.times_tensor_form()) {  // the block form against the per-tensor form, launch by launch
    const double tensor = summarize(ms.back()).median;
    std::printf("  per-tensor form %7.1f (%.3fx)", tflops(s, tensor), tensor / ours);
    row["tensor_form_ms"] = tensor;
    row["ratio_to_tensor_form"] = tensor / ours;
  }
  std::printf("\n");
  if (power.sm_clock_mhz) row["sm_clock_mhz"] = *power.sm_clock_mhz;
  if (power.power_w) row["power_w"] = *power.power_w;
  if (o.sustain_s > 0 && k.lt && s.m == 8192 && s.n == 8192 && s.k == 8192) {
    const Scaling lt_scaling = k.same_product ? scaling : Scaling::tensor;
    for (const auto& [name, launch, mode] : {std::tuple{v.name, launches[0], scaling},
                                             std::tuple{std::string("cublaslt"), launches[1], lt_scaling}}) {
      const SustainedRun r = time_sustained(launch, o.sustain_s);
      const double t = tflops(s, r.ms_per_launch);
      std::printf("sustained %-8s %-6s 8192^3  %7.1f TFLOPS  %6.0f MHz  %5.0f W  %.2f TFLOPS/W\n", name.c_str(),
                  scaling_name(mode), t, r.power.sm_clock_mhz.value_or(0), r.power.power_w.value_or(0),
                  r.power.power_w ? t / *r.power.power_w : 0);
      row["sustained"][name] = {{"tflops", t}, {"launches", r.launches}};
      if (r.power.sm_clock_mhz) row["sustained"][name]["sm_clock_mhz"] = *r.power.sm_clock_mhz;
      if (r.power.power_w) row["sustained"][name]["power_w"] = *r.power.power_w;
    }
  }
  rows.push_back(row);
  return pass;
}

// The accumulation's error over K: the same unit-scaled inputs through the per-tensor form (the
// WGMMA accumulator alone), the block-scaled form (promoted every 128 of K) and cuBLASLt's two modes;
// then the block form on scales that span a realistic range: 2^-3 to 2^3 per block, and every
// 16th row of A 64 times larger, as activations with outlier channels.
void precision(const Fp8Version& v, nlohmann::json& table) {
  std::printf("%7s  %-36s %10s %14s\n", "K", "kernel", "rel err", "vs bf16(exact)");
  struct Case {
    Scaling scaling;
    int spread, outlier_every;
    const char* name;
  };
  const Case cases[] = {{Scaling::tensor, 0, 0, " tensor (no promotion)"},
                        {Scaling::block, 0, 0, " block (promoted)"},
                        {Scaling::block, 3, 16, " block, scales 2^+-3, outlier rows"}};
  for (int64_t kk : {1024, 4096, 16384, 65536}) {
    const Shape s{1024, 1024, kk};
    for (const Case& c : cases) {
      const Scaling scaling = c.scaling;
      if (v.entry(scaling) == nullptr) continue;
      Fp8Problem p(s, scaling);
      p.new_inputs(fresh_seed(), c.spread, c.outlier_every);
      p.compute_reference(row_step_for(s));
      Kernels k(p, v);
      const std::string ours = v.name + c.name;
      std::vector<std::pair<std::string, Launch>> kernels{{ours, [&](cudaStream_t st) { k.ours(st); }}};
      if (k.same_product) {
        kernels.emplace_back("cuBLASLt", [&](cudaStream_t st) { k.lt->run(st); });
        kernels.emplace_back("cuBLASLt fast accum", [&](cudaStream_t st) { k.lt_fast->run(st); });
      }
      for (const auto& [name, launch] : kernels) {
        const auto e = error_of(p, launch);
        std::printf("%7lld  %-36s %10.2e %14.2e\n", (long long)kk, name.c_str(), e.rel_err, e.rel_err_vs_bf16);
        table.push_back({{"k", kk}, {"kernel", name}, {"error", error_json(e)}});
      }
    }
  }
}

}  // namespace

int run_fp8_cli(const Fp8Version& v, int argc, char** argv) {
  const std::string program = argv[0];
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress line by line, also into a file
  Fp8Options o;
  try {
    o = parse_fp8_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n%s", program.c_str(), e.what(), fp8_usage(program).c_str());
    return exit_bad_arguments;
  }
  if (o.help) {
    std::printf("%s", fp8_usage(program).c_str());
    return exit_pass;
  }
  DeviceInfo device;
  try {
    device = query_device();
    require_hopper(device);
  } catch (const NoUsableGpu& e) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), e.what());
    return exit_no_gpu;
  }
  nlohmann::json out = {{"gpu", device.name},
                        {"git_commit", git_commit()},
                        {"version", v.name},
                        {"technique", v.technique},
                        {"reference", cublaslt_version()}};
  std::printf("%s on %s, against %s\n", v.name.c_str(), device.name.c_str(), cublaslt_version().c_str());
  for (const Param& p : v.config) out["config"][p.name] = p.value;
  bool pass = true;
  try {
    if (o.precision) {
      precision(v, out["precision"]);
    } else {
      for (const Shape& s : o.shapes)
        for (Scaling scaling : o.scalings)
          if (v.entry(scaling) != nullptr) pass = bench(v, s, scaling, o, out["rows"]) && pass;
    }
  } catch (const NotImplemented& e) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), e.what());
    return exit_not_implemented;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), e.what());
    return exit_failed;
  }
  if (!o.json.empty()) {
    try {
      write_file(o.json, out.dump(1) + "\n");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", program.c_str(), e.what());
      return exit_failed;
    }
  }
  return pass ? exit_pass : exit_failed;
}

}  // namespace matmul
