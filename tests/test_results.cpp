// The results file: what is written is what is read back, and a bad file is refused clearly.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/harness/power.h"
#include "common/harness/results.h"

using namespace matmul;
using Catch::Matchers::ContainsSubstring;
namespace fs = std::filesystem;

namespace {

Results sample() {
  Results r;
  r.device = {"NVIDIA H200", 9, 0, 132, 1980, 3201, 60, "13.0", "13.0"};
  r.git = "0123456789ab";
  r.date = "2026-11-29T10:00:00Z";
  RunRecord run;
  run.version = "v0_naive";
  run.technique = "one thread per output element";
  run.dtype = DType::bf16;
  run.m = 4096, run.n = 2048, run.k = 1016;
  run.ms_median = 1.5, run.ms_min = 1.25, run.ms_max = 2.75, run.tflops = 11.4;
  run.cublas_ms_median = 0.03, run.ratio_vs_cublas = 0.02;
  run.rel_err = 2.5e-3;
  run.pass = true;
  run.config = {{"BLOCK_X", 32}, {"BLOCK_Y", 8}};
  r.runs.push_back(run);
  run.version = "cublas";
  run.rel_err.reset();
  run.pass.reset();
  run.config.clear();
  r.runs.push_back(run);
  r.skipped.push_back({"v0_naive", DType::fp16, 16384, 16384, 16384, "too slow"});
  return r;
}

fs::path temp_dir() {
  const fs::path d = fs::temp_directory_path() / ("matmul_results_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("results survive a JSON round trip field by field") {
  const Results in = sample();
  const Results out = parse_results(to_json_text(in));
  CHECK(out.device.name == in.device.name);
  CHECK(out.device.cc_major == 9);
  CHECK(out.device.sm_count == 132);
  CHECK(out.device.sm_clock_mhz == 1980);
  CHECK(out.git == in.git);
  CHECK(out.date == in.date);
  REQUIRE(out.runs.size() == 2);
  const RunRecord& r = out.runs[0];
  CHECK(r.version == "v0_naive");
  CHECK(r.dtype == DType::bf16);
  CHECK((r.m == 4096 && r.n == 2048 && r.k == 1016));
  CHECK((r.ms_median == 1.5 && r.ms_min == 1.25 && r.ms_max == 2.75));
  CHECK(r.tflops == 11.4);
  CHECK(r.ratio_vs_cublas == 0.02);
  CHECK(r.rel_err == 2.5e-3);
  CHECK(r.pass == true);
  REQUIRE(r.config.size() == 2);
  CHECK((r.config[0].name == "BLOCK_X" && r.config[0].value == 32));
  CHECK_FALSE(out.runs[1].rel_err.has_value());  // an unchecked run stays unchecked
  CHECK_FALSE(out.runs[1].pass.has_value());
  REQUIRE(out.skipped.size() == 1);
  CHECK(out.skipped[0].reason == "too slow");
  CHECK(to_json_text(out) == to_json_text(in));
}

TEST_CASE("the JSON uses the documented field names") {
  const std::string text = to_json_text(sample());
  for (const char* key : {"\"device\"", "\"git\"", "\"date\"", "\"runs\"", "\"ms_median\"", "\"ms_min\"", "\"ms_max\"",
                          "\"tflops\"", "\"cublas_ms_median\"", "\"ratio_vs_cublas\"", "\"rel_err\"", "\"config\""})
    CHECK_THAT(text, ContainsSubstring(key));
}

TEST_CASE("malformed or foreign results files are refused with a message") {
  CHECK_THROWS_WITH(parse_results("{not json"), ContainsSubstring("not a results file"));
  CHECK_THROWS_WITH(parse_results("{\"foo\": 1}"), ContainsSubstring("not a results file"));
  std::string text = to_json_text(sample());
  text.replace(text.find("\"tflops\""), 8, "\"tflopz\"");
  CHECK_THROWS_WITH(parse_results(text), ContainsSubstring("tflops"));
  CHECK_THROWS_WITH(read_results("/nonexistent/results.json"),
                    ContainsSubstring("cannot read /nonexistent/results.json"));
}

TEST_CASE("results are written through a temporary file and a rename") {
  const fs::path dir = temp_dir();
  const std::string path = (dir / "gpu.json").string();
  write_results(path, sample());
  CHECK(read_results(path).runs.size() == 2);
  CHECK_FALSE(fs::exists(path + ".tmp"));

  // A write that cannot complete leaves the earlier file as it was.
  const std::string before = to_json_text(read_results(path));
  fs::create_directory(path + ".tmp");  // the temporary file cannot be created
  CHECK_THROWS(write_results(path, Results{}));
  CHECK(to_json_text(read_results(path)) == before);
  fs::remove_all(dir);
}

TEST_CASE("clock, power, spread and the sustained run survive a round trip; older files still parse") {
  Results in = sample();
  RunRecord& run = in.runs[0];
  run.spread_pct = 3.25;
  run.sm_clock_mhz = 1412.5;
  run.power_w = 655.0;
  run.sustained = Sustained{2.0, {615.0, 1384.0, 669.0}, {622.0, 1414.0, std::nullopt}};
  const std::string text = to_json_text(in);
  const Results out = parse_results(text);
  const RunRecord& r = out.runs[0];
  CHECK(r.spread_pct == 3.25);
  CHECK(r.sm_clock_mhz == 1412.5);
  CHECK(r.power_w == 655.0);
  REQUIRE(r.sustained);
  CHECK(r.sustained->seconds == 2.0);
  CHECK(r.sustained->version.tflops == 615.0);
  CHECK(r.sustained->version.sm_clock_mhz == 1384.0);
  CHECK(r.sustained->cublas.power_w == std::nullopt);
  // The derived figures are written for readers: 615 / 669 W, 615 over 132 · 4096 · 1.384 GHz, and
  // the run's own 11.4 TFLOPS over 132 · 4096 · 1.4125 GHz.
  CHECK_THAT(text, ContainsSubstring("\"tflops_per_w\": 0.919"));
  CHECK_THAT(text, ContainsSubstring("\"tensor_util\": 0.8218"));
  CHECK_THAT(text, ContainsSubstring("\"tensor_util\": 0.01492"));
  CHECK(out.runs[1].sustained == std::nullopt);
  CHECK(out.runs[1].sm_clock_mhz == std::nullopt);

  // A file from before these keys existed: the run lines holding them removed (JSON objects are
  // written with sorted keys, so none of them is the last of its object and no comma dangles).
  std::istringstream lines(to_json_text(sample()));
  std::string old;
  for (std::string line; std::getline(lines, line);)
    if (line.find("\"spread_pct\"") == std::string::npos && line.find("\"power_w\"") == std::string::npos &&
        line.find("\"tensor_util\"") == std::string::npos && line.find("\"sm_clock_mhz\": null") == std::string::npos)
      old += line + "\n";
  REQUIRE(old.find("spread_pct") == std::string::npos);
  const Results older = parse_results(old);
  CHECK(older.runs[0].spread_pct == 0);
  CHECK(older.runs[0].sm_clock_mhz == std::nullopt);
}

TEST_CASE("TFLOPS per watt and utilisation at the clock are derived, and absent without a reading") {
  const KernelUnderLoad k{700.0, 1500.0, 700.0};
  CHECK(*k.tflops_per_w() == 1.0);
  CHECK(*tensor_util(k.tflops, k.sm_clock_mhz, 132) == 700.0 / (132 * 4096.0 * 1500.0 * 1e-6));
  CHECK(tensor_peak_tflops(132, 1830.0) > 989.0);
  CHECK(tensor_peak_tflops(132, 1830.0) < 990.0);
  const KernelUnderLoad none{700.0, std::nullopt, std::nullopt};
  CHECK(none.tflops_per_w() == std::nullopt);
  CHECK(tensor_util(none.tflops, none.sm_clock_mhz, 132) == std::nullopt);
}

TEST_CASE("a peer's run is marked in the file and read back as one; files without the key hold none") {
  Results in = sample();
  in.runs[0].peer = true;
  std::string text = to_json_text(in);
  CHECK_THAT(text, ContainsSubstring("\"peer\": true"));
  const Results out = parse_results(text);
  CHECK(out.runs[0].peer);
  CHECK_FALSE(out.runs[1].peer);
  CHECK(to_json_text(out) == text);
  CHECK_THAT(to_json_text(sample()), !ContainsSubstring("\"peer\""));  // written only for a peer
  text.replace(text.find("\"peer\": true"), 12, "\"peer\": \"yes\"");
  CHECK_THROWS_WITH(parse_results(text), ContainsSubstring("not a results file"));
}

TEST_CASE("the LLM suite's weight bandwidth, its plain read and the HBM read limit are read back; a ladder file holds none") {
  CHECK_THAT(to_json_text(sample()), !ContainsSubstring("weight_gbps") && !ContainsSubstring("read_gbps"));  // nor hbm_read_gbps
  CHECK_FALSE(parse_results(to_json_text(sample())).hbm_read_gbps);
  Results in = sample();
  in.hbm_read_gbps = 4321.5;
  in.runs[0].weight_gbps = 3758.25;
  in.runs[0].read_gbps = 3480.5;
  std::string text = to_json_text(in);
  CHECK_THAT(text, ContainsSubstring("\"hbm_read_gbps\": 4321.5") && ContainsSubstring("\"weight_gbps\": 3758.25") &&
                       ContainsSubstring("\"read_gbps\": 3480.5"));
  const Results out = parse_results(text);
  CHECK(out.hbm_read_gbps == 4321.5);
  CHECK(out.runs[0].weight_gbps == 3758.25);
  CHECK(out.runs[0].read_gbps == 3480.5);
  CHECK_FALSE(out.runs[1].weight_gbps);  // written only where measured
  CHECK_FALSE(out.runs[1].read_gbps);
  CHECK(to_json_text(out) == text);
  text.replace(text.find("\"hbm_read_gbps\": 4321.5"), 23, "\"hbm_read_gbps\": \"fast\"");
  CHECK_THROWS_WITH(parse_results(text), ContainsSubstring("not a results file"));
}
