#include "common/harness/harness.h"

#include <cstdio>
#include <iostream>
#include <optional>

#include "common/check.h"
#include "common/harness/cublas.h"
#include "common/harness/fill.h"
#include "common/harness/gpu.h"
#include "common/harness/stats.h"
#include "common/harness/trace_file.h"

namespace matmul {

namespace {

size_t elements(int64_t rows, int64_t cols) { return size_t(rows) * size_t(cols); }

// Refuses a bad shape before any buffer is sized from it.
Shape validated(Shape s) {
  validate_shape(s);
  return s;
}

}  // namespace

Workspace::Workspace(DType t, Shape s, bool queued)
    : dtype_(t),
      shape_(validated(s)),
      a_(elements(s.m, s.k) * dtype_bytes),
      b_(elements(s.n, s.k) * dtype_bytes),
      c_((guard_elements + elements(s.m, s.n) + guard_elements) * dtype_bytes),
      c_first_(elements(s.m, s.n) * dtype_bytes),
      c_cublas_(elements(s.m, s.n) * dtype_bytes),
      ref_(elements(s.m, s.n) * sizeof(float)),
      queued_(queued) {
  new_inputs();
}

void Workspace::new_inputs() {
  const float scale = input_scale(shape_.k);
  fill_uniform(a_.get(), elements(shape_.m, shape_.k), dtype_, scale, fresh_seed());
  fill_uniform(b_.get(), elements(shape_.n, shape_.k), dtype_, scale, fresh_seed());
  cublas_reference(dtype_, a_.get(), b_.get(), static_cast<float*>(ref_.get()), int(shape_.m), int(shape_.n),
                   int(shape_.k));
}

void Workspace::run(const Version& v, void* c, cudaStream_t stream) const {
  v.run(dtype_, a_.get(), b_.get(), c, int(shape_.m), int(shape_.n), int(shape_.k), stream,
        queued_ ? &queue_ : nullptr);
}

void* Workspace::c_data() const { return static_cast<uint16_t*>(c_.get()) + guard_elements; }

void Workspace::poison_c() {
  const size_t count = elements(shape_.m, shape_.n);
  fill_bits(c_.get(), guard_elements, guard_bits);
  fill_bits(c_data(), count, poison_bits);
  fill_bits(static_cast<uint16_t*>(c_data()) + count, guard_elements, guard_bits);
}

int64_t Workspace::guard_damage() const {
  const size_t count = elements(shape_.m, shape_.n);
  return count_not_equal(c_.get(), guard_elements, guard_bits) +
         count_not_equal(static_cast<const uint16_t*>(c_data()) + count, guard_elements, guard_bits);
}

Verification Workspace::verify(const Version& v) {
  const size_t count = elements(shape_.m, shape_.n);

  poison_c();
  run(v, c_data());
  CUDA_CHECK(cudaDeviceSynchronize());
  Verification result = compare_to_reference(dtype_, c_data(), static_cast<const float*>(ref_.get()), count);
  result.guard_damage = guard_damage();

  CUDA_CHECK(cudaMemcpy(c_first_.get(), c_data(), count * dtype_bytes, cudaMemcpyDeviceToDevice));
  poison_c();
  run(v, c_data());
  CUDA_CHECK(cudaDeviceSynchronize());
  result.rerun_differences = count_differences(c_data(), c_first_.get(), count);
  result.guard_damage += guard_damage();
  return result;
}

void* Workspace::c_of(const Version& v) const { return &v == &cublas_version() ? c_cublas_.get() : c_data(); }

std::vector<Launch> Workspace::launches(const std::vector<const Version*>& kernels) const {
  std::vector<Launch> l;
  for (const Version* v : kernels) l.push_back([this, v](cudaStream_t s) { run(*v, c_of(*v), s); });
  return l;
}

Samples Workspace::warm_up(const std::vector<const Version*>& kernels, int rounds, const Launch& before) {
  return matmul::warm_up(launches(kernels), rounds, nullptr, before);
}

TimedRounds Workspace::time_rounds(const std::vector<const Version*>& kernels, int rounds, const Launch& before) {
  const std::vector<Launch> l = launches(kernels);
  PowerSampler sampler;
  sampler.start();
  Samples ms = matmul::time_rounds(l, rounds, nullptr, before);
  return {std::move(ms), sampler.stop()};
}

Timings Workspace::time_against(const Version& v, const Version& other, const TimingFlags& t) {
  return time_interleaved([&](cudaStream_t s) { run(v, c_data(), s); },
                          [&](cudaStream_t s) { run(other, c_cublas_.get(), s); }, t.warmup, t.iters);
}

SustainedRun Workspace::sustain(const Version& v, double seconds) {
  return time_sustained([&](cudaStream_t s) { run(v, c_of(v), s); }, seconds);
}

RunRecord checked_record(Workspace& w, const Version& v, bool check) {
  RunRecord r;
  r.version = v.name;
  r.technique = v.technique;
  r.dtype = w.dtype();
  r.m = w.shape().m;
  r.n = w.shape().n;
  r.k = w.shape().k;
  r.config = v.config;
  r.peer = v.peer;
  if (check) {
    const Verification result = w.verify(v);
    r.rel_err = result.rel_err;
    r.pass = result.pass();
    if (!result.pass()) std::cerr << v.name << ": FAIL: " << result.failure() << "\n";
  }
  return r;
}

void set_times(RunRecord& r, const std::vector<float>& ms, double cublas_ms_median, const PowerReading& power) {
  const Stats stats = summarize(ms);
  r.ms_median = stats.median;
  r.ms_min = stats.min;
  r.ms_max = stats.max;
  r.spread_pct = stats.spread_pct();
  r.tflops = Shape{r.m, r.n, r.k}.flops() / (stats.median * 1e-3) / 1e12;
  r.cublas_ms_median = cublas_ms_median;
  r.ratio_vs_cublas = cublas_ms_median / stats.median;
  r.sm_clock_mhz = power.sm_clock_mhz;
  r.power_w = power.power_w;
}

void set_sustained(RunRecord& r, Workspace& w, const Version& v, double seconds) {
  const auto under_load = [&](const Version& kernel) {
    const SustainedRun run = w.sustain(kernel, seconds);
    return KernelUnderLoad{w.shape().flops() / (run.ms_per_launch * 1e-3) / 1e12, run.power.sm_clock_mhz,
                           run.power.power_w};
  };
  r.sustained = Sustained{seconds, under_load(v), under_load(cublas_version())};
}

RunRecord benchmark(const Version& v, DType t, Shape s, const TimingFlags& timing, bool check, double sustain_s,
                    bool queued) {
  Workspace w(t, s, queued);
  RunRecord r = checked_record(w, v, check);
  if (!queued && v.queued_fp16 != nullptr) r.config.push_back({"QUEUE", 0});  // the static stride
  // The clock and the power cover the version's launches and cuBLAS's, interleaved.
  const std::vector<const Version*> pair{&v, &cublas_version()};
  w.warm_up(pair, timing.warmup);
  const TimedRounds times = w.time_rounds(pair, timing.iters);
  set_times(r, times.ms[0], summarize(times.ms[1]).median, times.power);
  if (sustain_s > 0) set_sustained(r, w, v, sustain_s);
  return r;
}

std::string table_header() {
  char line[240];
  std::snprintf(line, sizeof line, "%-18s %-17s %-5s %10s %10s %10s %7s %8s %5s %9s %9s  %s", "version", "m x n x k",
                "dtype", "median ms", "min ms", "max ms", "spread", "TFLOPS", "MHz", "vs cuBLAS", "rel_err", "result");
  return line;
}

namespace {

// `x` (times `scale`) in `format`, or "-" when there is no value.
std::string figure(const std::optional<double>& x, const char* format, double scale = 1) {
  if (!x) return "-";
  char text[32];
  std::snprintf(text, sizeof text, format, *x * scale);
  return text;
}

}  // namespace

std::string table_row(const RunRecord& r) {
  char shape[64], line[280];
  std::snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)r.m, (long long)r.n, (long long)r.k);
  const char* verdict = !r.pass ? "UNCHECKED" : *r.pass ? "PASS" : "FAIL";
  std::snprintf(line, sizeof line, "%-18s %-17s %-5s %10.3f %10.3f %10.3f %6.1f%% %8.1f %5s %8.3fx %9s  %s",
                r.version.c_str(), shape, dtype_name(r.dtype), r.ms_median, r.ms_min, r.ms_max, r.spread_pct, r.tflops,
                figure(r.sm_clock_mhz, "%.0f").c_str(), r.ratio_vs_cublas, figure(r.rel_err, "%.2e").c_str(), verdict);
  return line;
}

std::string sustained_lines(const RunRecord& r, int sm_count) {
  if (!r.sustained) return "";
  const auto line = [&](const std::string& name, const KernelUnderLoad& k) {
    char text[240];
    std::snprintf(text, sizeof text, "  under load %.1f s  %-18s %7.1f TFLOPS  %s MHz  %s W  %s TFLOPS/W  %s of peak\n",
                  r.sustained->seconds, name.c_str(), k.tflops, figure(k.sm_clock_mhz, "%.0f").c_str(),
                  figure(k.power_w, "%.0f").c_str(), figure(k.tflops_per_w(), "%.3f").c_str(),
                  figure(tensor_util(k.tflops, k.sm_clock_mhz, sm_count), "%.1f%%", 100).c_str());
    return std::string(text);
  };
  return line(r.version, r.sustained->version) + line("cublas", r.sustained->cublas);
}

int run_cli(const Version& v, int argc, char** argv) {
  return run_guarded(v.name, [&] {
    const Options o = parse_options(std::vector<std::string>(argv + 1, argv + argc));
    if (o.help) {
      std::cout << usage(argv[0]);
      return int(exit_pass);
    }
    const DeviceInfo device = query_device();
    require_hopper(device);
    // Traced, every launch logs (the row's TFLOPS are the traced kernel's); the file holds the last.
    std::optional<TraceRecording> recording;
    if (!o.trace.empty()) recording.emplace(o.trace_ctas);
    const RunRecord r = benchmark(v, o.dtype, o.shape, o.timing, o.check, o.sustain_s, o.queue);
    std::cout << table_header() << "\n" << table_row(r) << "\n" << sustained_lines(r, device.sm_count) << std::flush;
    if (!o.json.empty()) write_results(o.json, Results{device, git_commit(), utc_now(), {r}, {}});
    if (recording) write_trace(o.trace, {v.name, o.dtype, o.shape, device, git_commit(), utc_now()}, *recording);
    return int(r.pass.value_or(true) ? exit_pass : exit_failed);
  });
}

int run_guarded(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::invalid_argument& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return exit_bad_arguments;
  } catch (const NoUsableGpu& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return exit_no_gpu;
  } catch (const NotImplemented& e) {
    std::cerr << program << ": not implemented: " << e.what() << "\n";
    return exit_not_implemented;
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return exit_failed;
  }
}

}  // namespace matmul
