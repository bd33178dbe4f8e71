#include "common/harness/results.h"

#include "common/harness/power.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace matmul {

using nlohmann::json;

void to_json(json& j, const DeviceInfo& d) {
  j = {{"name", d.name},
       {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
       {"sm_count", d.sm_count},
       {"sm_clock_mhz", d.sm_clock_mhz},
       {"mem_clock_mhz", d.mem_clock_mhz},
       {"l2_mb", d.l2_mb},
       {"driver", d.driver},
       {"runtime", d.runtime}};
}

void from_json(const json& j, DeviceInfo& d) {
  j.at("name").get_to(d.name);
  const std::string cc = j.at("compute_capability").get<std::string>();
  if (std::sscanf(cc.c_str(), "%d.%d", &d.cc_major, &d.cc_minor) != 2)
    throw std::invalid_argument("device.compute_capability '" + cc + "' is not MAJOR.MINOR");
  j.at("sm_count").get_to(d.sm_count);
  j.at("sm_clock_mhz").get_to(d.sm_clock_mhz);
  j.at("mem_clock_mhz").get_to(d.mem_clock_mhz);
  j.at("l2_mb").get_to(d.l2_mb);
  j.at("driver").get_to(d.driver);
  j.at("runtime").get_to(d.runtime);
}

void to_json(json& j, DType t) { j = dtype_name(t); }

void from_json(const json& j, DType& t) {
  const auto parsed = parse_dtype(j.get<std::string>());
  if (!parsed) throw std::invalid_argument("dtype '" + j.get<std::string>() + "' is neither fp16 nor bf16");
  t = *parsed;
}

template <typename V>
json optional_json(const std::optional<V>& v) {
  return v ? json(*v) : json(nullptr);
}

template <typename V>
std::optional<V> optional_from(const json& j, const char* key) {
  const json& v = j.at(key);
  return v.is_null() ? std::nullopt : std::optional<V>(v.get<V>());
}

std::optional<double> KernelUnderLoad::tflops_per_w() const {
  if (!power_w || *power_w <= 0) return std::nullopt;
  return tflops / *power_w;
}

std::optional<double> tensor_util(double tflops, const std::optional<double>& sm_clock_mhz, int sm_count) {
  if (!sm_clock_mhz || *sm_clock_mhz <= 0) return std::nullopt;
  return tflops / tensor_peak_tflops(sm_count, *sm_clock_mhz);
}

// The derived figures (TFLOPS per watt, utilisation) are written for readers of the file, not
// read back: they follow from the others. `sm_count` is the device's.
json kernel_json(const KernelUnderLoad& k, int sm_count) {
  return {{"tflops", k.tflops},
          {"sm_clock_mhz", optional_json(k.sm_clock_mhz)},
          {"power_w", optional_json(k.power_w)},
          {"tflops_per_w", optional_json(k.tflops_per_w())},
          {"tensor_util", optional_json(tensor_util(k.tflops, k.sm_clock_mhz, sm_count))}};
}

KernelUnderLoad kernel_from(const json& j) {
  return {j.at("tflops").get<double>(), optional_from<double>(j, "sm_clock_mhz"), optional_from<double>(j, "power_w")};
}

// Keys added after the first results files: absent in those, null when not measured.
template <typename V>
std::optional<V> optional_if_present(const json& j, const char* key) {
  return j.contains(key) ? optional_from<V>(j, key) : std::nullopt;
}

json run_json(const RunRecord& r, int sm_count) {
  json config = json::object();
  for (const Param& p : r.config) config[p.name] = p.value;
  json j = {{"version", r.version},
            {"technique", r.technique},
            {"dtype", r.dtype},
            {"m", r.m},
            {"n", r.n},
            {"k", r.k},
            {"ms_median", r.ms_median},
            {"ms_min", r.ms_min},
            {"ms_max", r.ms_max},
            {"tflops", r.tflops},
            {"cublas_ms_median", r.cublas_ms_median},
            {"ratio_vs_cublas", r.ratio_vs_cublas},
            {"rel_err", optional_json(r.rel_err)},
            {"pass", optional_json(r.pass)},
            {"config", config},
            {"spread_pct", r.spread_pct},
            {"sm_clock_mhz", optional_json(r.sm_clock_mhz)},
            {"power_w", optional_json(r.power_w)},
            {"tensor_util", optional_json(tensor_util(r.tflops, r.sm_clock_mhz, sm_count))}};
  if (r.peer) j["peer"] = true;
  if (r.weight_gbps) j["weight_gbps"] = *r.weight_gbps;
  if (r.read_gbps) j["read_gbps"] = *r.read_gbps;
  if (r.sustained)
    j["sustained"] = {{"seconds", r.sustained->seconds},
                      {"version", kernel_json(r.sustained->version, sm_count)},
                      {"cublas", kernel_json(r.sustained->cublas, sm_count)}};
  return j;
}

void from_json(const json& j, RunRecord& r) {
  j.at("version").get_to(r.version);
  j.at("technique").get_to(r.technique);
  j.at("dtype").get_to(r.dtype);
  j.at("m").get_to(r.m);
  j.at("n").get_to(r.n);
  j.at("k").get_to(r.k);
  j.at("ms_median").get_to(r.ms_median);
  j.at("ms_min").get_to(r.ms_min);
  j.at("ms_max").get_to(r.ms_max);
  j.at("tflops").get_to(r.tflops);
  j.at("cublas_ms_median").get_to(r.cublas_ms_median);
  j.at("ratio_vs_cublas").get_to(r.ratio_vs_cublas);
  r.rel_err = optional_from<double>(j, "rel_err");
  r.pass = optional_from<bool>(j, "pass");
  r.config.clear();
  for (const auto& [name, value] : j.at("config").items()) r.config.push_back({name, value.get<long>()});
  r.spread_pct = j.value("spread_pct", 0.0);
  r.sm_clock_mhz = optional_if_present<double>(j, "sm_clock_mhz");
  r.power_w = optional_if_present<double>(j, "power_w");
  r.peer = j.value("peer", false);
  r.weight_gbps = optional_if_present<double>(j, "weight_gbps");
  r.read_gbps = optional_if_present<double>(j, "read_gbps");
  if (j.contains("sustained"))
    r.sustained = Sustained{j["sustained"].at("seconds").get<double>(), kernel_from(j["sustained"].at("version")),
                            kernel_from(j["sustained"].at("cublas"))};
}

void to_json(json& j, const SkippedRun& s) {
  j = {{"version", s.version}, {"dtype", s.dtype}, {"m", s.m}, {"n", s.n}, {"k", s.k}, {"reason", s.reason}};
}

void from_json(const json& j, SkippedRun& s) {
  j.at("version").get_to(s.version);
  j.at("dtype").get_to(s.dtype);
  j.at("m").get_to(s.m);
  j.at("n").get_to(s.n);
  j.at("k").get_to(s.k);
  j.at("reason").get_to(s.reason);
}

std::string to_json_text(const Results& r) {
  json runs = json::array();
  for (const RunRecord& run : r.runs) runs.push_back(run_json(run, r.device.sm_count));
  json j = {{"device", r.device}, {"git", r.git}, {"date", r.date}, {"runs", runs}, {"skipped", r.skipped}};
  if (r.hbm_read_gbps) j["hbm_read_gbps"] = *r.hbm_read_gbps;
  return j.dump(2) + "\n";
}

Results parse_results(const std::string& text) {
  try {
    const json j = json::parse(text);
    Results r;
    j.at("device").get_to(r.device);
    j.at("git").get_to(r.git);
    j.at("date").get_to(r.date);
    j.at("runs").get_to(r.runs);
    if (j.contains("skipped")) j.at("skipped").get_to(r.skipped);
    r.hbm_read_gbps = optional_if_present<double>(j, "hbm_read_gbps");
    return r;
  } catch (const json::exception& e) {
    throw std::invalid_argument(std::string("not a results file: ") + e.what());
  }
}

void write_results(const std::string& path, const Results& r) { write_file(path, to_json_text(r)); }

void write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path);
  }
}

Results read_results(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  try {
    return parse_results(text.str());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
}

std::string git_commit() {
  if (const char* given = std::getenv("MATMUL_GIT_COMMIT"); given && *given) return given;
  std::string out;
  const std::string command = "git -C '" MATMUL_SOURCE_DIR "' describe --always --dirty --abbrev=12 2>/dev/null";
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[128];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out.empty() ? "unknown" : out;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace matmul
