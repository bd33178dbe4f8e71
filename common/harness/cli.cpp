#include "common/harness/cli.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "common/harness/llm_suite.h"
#include "common/hopper/trace.h"

namespace matmul {

namespace {

[[noreturn]] void bad(const std::string& flag, const std::string& value, const std::string& rule) {
  throw std::invalid_argument(flag + " " + value + " is invalid: " + rule);
}

const char* const dimension_rule = "each dimension must be below 2^31";

// `range` is the flag's rule, quoted when the text does not even fit in 64 bits.
int64_t parse_integer(const std::string& flag, const std::string& text, const std::string& range) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') bad(flag, "'" + text + "'", "expected an integer");
  if (errno == ERANGE) bad(flag, text, "out of range: " + range);
  return v;
}

int64_t parse_dimension(const std::string& flag, const std::string& text) {
  return parse_integer(flag, text, dimension_rule);
}

int parse_count(const std::string& flag, const std::string& text, int min, int max = 1000000) {
  const std::string range = "must be between " + std::to_string(min) + " and " + std::to_string(max);
  const int64_t v = parse_integer(flag, text, range);
  if (v < min || v > max) bad(flag, text, range);
  return int(v);
}

// validate_shape's rules, one dimension at a time, so that a refusal names the flag and the value
// that set the dimension: "--size 99999999999: M = 99999999999 is invalid: M must be below 2^31".
// set_by[d] is that "--flag value", empty for a default.
void validate_dimensions(const Shape& s, const std::string (&set_by)[3]) {
  const Shape alone[3] = {{s.m, 1, 8}, {1, s.n, 8}, {1, 1, s.k}};
  for (int d = 0; d < 3; ++d) {
    try {
      validate_shape(alone[d]);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(set_by[d].empty() ? e.what() : set_by[d] + ": " + e.what());
    }
  }
  validate_shape(s);
}

std::string file_name(const std::string& flag, const std::string& text) {
  if (text.empty()) bad(flag, "''", "expected a file name");
  return text;
}

// The file a results file is written to: FILE.tmp, then renamed over FILE, so its folder must be
// writable. With create_folder (the ladder), a missing folder is fine when it can be created: its
// nearest existing ancestor is a writable folder. Nothing is created or written to find out.
void check_output_file(const std::string& flag, const std::string& shown, const std::string& file, bool create_folder) {
  namespace fs = std::filesystem;
  const fs::path path(file);
  std::error_code ec;
  if (!path.has_filename() || fs::is_directory(path, ec)) bad(flag, shown, "expected a file name, not a folder");
  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  fs::path existing = folder;  // the folder, or with create_folder its nearest existing ancestor
  while (!fs::exists(existing, ec)) {
    if (!create_folder) bad(flag, shown, "its folder " + folder.string() + " does not exist");
    const fs::path up = existing.parent_path().empty() ? fs::path(".") : existing.parent_path();
    if (up == existing) bad(flag, shown, "its folder " + folder.string() + " cannot be created");
    existing = up;
  }
  const std::string why = existing == folder ? "" : "its folder " + folder.string() + " cannot be created: ";
  if (!fs::is_directory(existing, ec)) bad(flag, shown, why + existing.string() + " is not a folder");
  if (access(existing.c_str(), W_OK | X_OK) != 0) bad(flag, shown, why + existing.string() + " is not writable");
}

DType parse_dtype_flag(const std::string& flag, const std::string& text) {
  const auto t = parse_dtype(text);
  if (!t) bad(flag, "'" + text + "'", "expected fp16 or bf16");
  return *t;
}

std::vector<std::string> split(const std::string& flag, const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma - start));
    if (items.back().empty()) bad(flag, "'" + text + "'", "expected a comma-separated list without empty items");
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

// Walks "--flag value" and "--flag=value" pairs; `take` consumes a flag's value.
class ArgReader {
 public:
  explicit ArgReader(const std::vector<std::string>& args) : args_(args) {}

  bool next() {
    if (i_ >= args_.size()) return false;
    const std::string& a = args_[i_++];
    if (a.rfind("--", 0) != 0)
      throw std::invalid_argument("unexpected argument '" + a + "' (flags start with --; see --help)");
    const size_t eq = a.find('=');
    flag_ = a.substr(0, eq);
    inline_value_ = eq == std::string::npos ? std::nullopt : std::optional<std::string>(a.substr(eq + 1));
    return true;
  }
  const std::string& flag() const { return flag_; }
  std::string take() {
    if (inline_value_) return *inline_value_;
    if (i_ >= args_.size()) throw std::invalid_argument(flag_ + " needs a value (see --help)");
    return args_[i_++];
  }
  // A flag that is a switch: true, after refusing a value given to it (--help=yes).
  bool take_switch() const {
    if (inline_value_) throw std::invalid_argument(flag_ + " takes no value");
    return true;
  }
  [[noreturn]] void unknown() const { throw std::invalid_argument("unknown flag " + flag_ + " (see --help)"); }

 private:
  const std::vector<std::string>& args_;
  size_t i_ = 0;
  std::string flag_;
  std::optional<std::string> inline_value_;
};

// --sizes S1,S2,... and --dtypes A,B: the square sizes and the element types a run walks.
bool parse_workload_flag(ArgReader& r, std::vector<int64_t>& sizes, std::vector<DType>& dtypes) {
  const std::string& f = r.flag();
  if (f == "--sizes") {
    sizes.clear();
    for (const std::string& s : split(f, r.take())) {
      sizes.push_back(parse_dimension(f, s));
      const std::string set_by = f + " " + s;
      validate_dimensions({sizes.back(), sizes.back(), sizes.back()}, {set_by, set_by, set_by});
    }
  } else if (f == "--dtypes") {
    dtypes.clear();
    for (const std::string& s : split(f, r.take())) dtypes.push_back(parse_dtype_flag(f, s));
  } else {
    return false;
  }
  return true;
}

// Every name of --versions is one of `known`.
void check_known(const std::vector<std::string>& names, const std::vector<std::string>& known) {
  for (const std::string& name : names) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    bad("--versions", "'" + name + "'", "not a registered version (registered: " + list + ")");
  }
}

bool parse_timing_flag(ArgReader& r, TimingFlags& t) {
  if (r.flag() == "--warmup")
    t.warmup = parse_count(r.flag(), r.take(), 0);
  else if (r.flag() == "--iters")
    t.iters = parse_count(r.flag(), r.take(), min_iters);
  else
    return false;
  return true;
}

}  // namespace

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  ArgReader r(args);
  int64_t* const dims[3] = {&o.shape.m, &o.shape.n, &o.shape.k};
  std::string set_by[3];  // the "--flag value" that set m, n and k last: a refusal names it
  const auto set_dimensions = [&](const std::string& flag, int first, int last) {
    const std::string text = r.take();
    const int64_t v = parse_dimension(flag, text);
    for (int d = first; d <= last; ++d) {
      *dims[d] = v;
      set_by[d] = flag + " " + text;
    }
  };
  while (r.next()) {
    const std::string& f = r.flag();
    if (f == "--m")
      set_dimensions(f, 0, 0);
    else if (f == "--n")
      set_dimensions(f, 1, 1);
    else if (f == "--k")
      set_dimensions(f, 2, 2);
    else if (f == "--size")
      set_dimensions(f, 0, 2);
    else if (f == "--dtype")
      o.dtype = parse_dtype_flag(f, r.take());
    else if (f == "--json")
      o.json = file_name(f, r.take());
    else if (f == "--sustain")
      o.sustain_s = parse_count(f, r.take(), 0);
    else if (f == "--trace")
      o.trace = file_name(f, r.take());
    else if (f == "--trace-ctas")
      o.trace_ctas = parse_count(f, r.take(), 1, max_trace_ctas);
    else if (f == "--no-check")
      o.check = !r.take_switch();
    else if (f == "--no-queue")
      o.queue = !r.take_switch();
    else if (f == "--help" || f == "-h")
      o.help = r.take_switch();
    else if (!parse_timing_flag(r, o.timing))
      r.unknown();
  }
  if (o.help) return o;
  validate_dimensions(o.shape, set_by);
  if (!o.json.empty()) check_output_file("--json", o.json, o.json, false);
  if (!o.trace.empty()) {
    if (!hopper::trace::enabled)
      bad("--trace", o.trace,
          "this binary was built without tracing; the trace build has it: cmake --preset trace && "
          "cmake --build build-trace");
    check_output_file("--trace", o.trace, o.trace, false);
  }
  return o;
}

Fp8Options parse_fp8_options(const std::vector<std::string>& args) {
  Fp8Options o;
  ArgReader r(args);
  Shape shape{0, 0, 0};  // --m, --n and --k: one shape instead of the sizes
  int64_t* const dims[3] = {&shape.m, &shape.n, &shape.k};
  std::string set_by[3];
  while (r.next()) {
    const std::string& f = r.flag();
    if (f == "--m" || f == "--n" || f == "--k") {
      const int d = f == "--m" ? 0 : f == "--n" ? 1 : 2;
      const std::string text = r.take();
      *dims[d] = parse_dimension(f, text);
      set_by[d] = f + " " + text;
    } else if (f == "--sizes") {
      o.shapes.clear();
      for (const std::string& text : split(f, r.take())) {
        const int64_t size = parse_dimension(f, text);
        const std::string by = f + " " + text;
        validate_dimensions({size, size, size}, {by, by, by});
        o.shapes.push_back({size, size, size});
      }
    } else if (f == "--scales") {
      o.scalings.clear();
      for (const std::string& text : split(f, r.take())) {
        if (text != "tensor" && text != "block") bad(f, "'" + text + "'", "expected tensor or block");
        o.scalings.push_back(text == "tensor" ? Scaling::tensor : Scaling::block);
      }
    } else if (f == "--json") {
      o.json = file_name(f, r.take());
    } else if (f == "--sustain") {
      o.sustain_s = parse_count(f, r.take(), 0);
    } else if (f == "--no-check") {
      o.check = !r.take_switch();
    } else if (f == "--precision") {
      o.precision = r.take_switch();
    } else if (f == "--help" || f == "-h") {
      o.help = r.take_switch();
    } else if (!parse_timing_flag(r, o.timing)) {
      r.unknown();
    }
  }
  if (o.help) return o;
  if (shape.m || shape.n || shape.k) {
    if (!(shape.m && shape.n && shape.k)) throw std::invalid_argument("--m, --n and --k go together: give all three");
    validate_dimensions(shape, set_by);
    o.shapes = {shape};
  }
  for (const Shape& s : o.shapes) validate_fp8_shape(s);
  if (!o.json.empty()) check_output_file("--json", o.json, o.json, false);
  return o;
}

TensorParallelOptions parse_tensor_parallel_options(const std::vector<std::string>& args) {
  TensorParallelOptions o;
  std::string devices = "0";
  ArgReader r(args);
  while (r.next()) {
    const std::string& f = r.flag();
    if (f == "--devices") {
      devices = r.take();
      o.devices.clear();
      for (const std::string& text : split(f, devices)) o.devices.push_back(parse_count(f, text, 0, 1023));
    } else if (f == "--dtype") {
      o.dtype = parse_dtype_flag(f, r.take());
    } else if (f == "--m") {
      o.ms.clear();
      for (const std::string& text : split(f, r.take())) {
        o.ms.push_back(parse_dimension(f, text));
        validate_dimensions({o.ms.back(), 1, 8}, {f + " " + text, "", ""});
      }
    } else if (f == "--iters") {
      o.iters = parse_count(f, r.take(), 3);
    } else if (f == "--chunk-cost") {
      o.chunk_cost = parse_count(f, r.take(), 2, 64);
    } else if (f == "--json") {
      o.json = file_name(f, r.take());
    } else if (f == "--help" || f == "-h") {
      o.help = r.take_switch();
    } else {
      r.unknown();
    }
  }
  if (o.help) return o;
  std::vector<int> sorted = o.devices;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() != sorted.back() && std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    bad("--devices", devices,
        "a GPU is listed twice (list each GPU once, or one GPU for every rank: the loopback group)");
  const int ranks = o.chunk_cost ? o.chunk_cost : int(o.devices.size());
  for (int64_t m : o.ms)
    if (m % ranks != 0)
      bad("--m", std::to_string(m), "M must be a multiple of the " + std::to_string(ranks) + " ranks");
  if (!o.json.empty()) check_output_file("--json", o.json, o.json, false);
  return o;
}

LadderOptions parse_ladder_options(const std::vector<std::string>& args,
                                   const std::vector<std::string>& known_versions) {
  LadderOptions o;
  bool restricted = false;  // a subset of the default workload
  std::string square_flag;  // a flag of the square sizes alone, when one was given
  ArgReader r(args);
  while (r.next()) {
    const std::string& f = r.flag();
    restricted = restricted || f == "--versions" || f == "--sizes" || f == "--dtypes";
    if (f == "--sizes" || f == "--budget" || f == "--sustain") square_flag = f;
    if (f == "--suite") {
      o.suite = r.take();
      if (o.suite != "llm") bad(f, "'" + o.suite + "'", "expected llm (the Llama-3 8B and 70B linear layers)");
    } else if (f == "--versions") {
      o.versions = split(f, r.take());
    } else if (f == "--sustain") {
      o.sustain_s = parse_count(f, r.take(), 0);
    } else if (f == "--budget") {
      o.budget_s = double(parse_count(f, r.take(), 1));
    } else if (f == "--out") {
      o.out = file_name(f, r.take());
    } else if (f == "--list") {
      o.list = r.take_switch();
    } else if (f == "--help" || f == "-h") {
      o.help = r.take_switch();
    } else if (!parse_workload_flag(r, o.sizes, o.dtypes) && !parse_timing_flag(r, o.timing)) {
      r.unknown();
    }
  }
  if (o.help) return o;
  check_known(o.versions, known_versions);
  if (o.list) return o;
  // The suite's shapes are fixed and each is quick: nothing to size, skip or sustain.
  if (!o.suite.empty() && !square_flag.empty())
    throw std::invalid_argument(square_flag + " is a flag of the square sizes, not of --suite " + o.suite +
                                " (its shapes are fixed, every kernel runs each of them)");
  if (restricted && o.out.empty())
    throw std::invalid_argument(
        "a run restricted by --versions, --sizes or --dtypes needs --out FILE: the default file, " +
        ladder_results_file(o, "<gpu>") + ", holds the whole " +
        (o.suite.empty() ? "ladder that the docs and plots are made from" : "suite that its plots are made from"));
  if (o.out.empty())
    check_output_file("--out", "(default " + ladder_results_file(o, "<gpu>") + ")", ladder_results_file(o, "gpu"),
                      true);
  else
    check_output_file("--out", o.out, o.out, true);
  return o;
}

std::string ladder_results_file(const LadderOptions& o, const std::string& gpu) {
  if (!o.out.empty()) return o.out;
  return "results/" + gpu + (o.suite.empty() ? "" : "_" + o.suite) + ".json";
}

std::string usage(const std::string& program) {
  return "usage: " + program + R"( [flags]
Computes C = A·Bᵀ (A m×k, B n×k, C m×n, row-major) on random inputs, checks it against cuBLAS,
times it against cuBLAS in the same process and prints one table row.

  --m M, --n N, --k K   problem shape (default 8192 each; K must be a multiple of 8)
  --size S              m = n = k = S
  --dtype fp16|bf16     element type (default fp16); accumulation is always fp32
  --warmup W            untimed launches before timing, within 1 s (default 10)
  --iters I             timed launches, at least )" +
         std::to_string(min_iters) + R"( (default 30)
  --no-check            skip verification (timing only)
  --no-queue            a persistent rung (v5 on) walks the static stride, the call without a
                        tile queue, instead of drawing from the queue (its faster form)
  --sustain S           then run the version alone and cuBLAS alone for S seconds each, and
                        report their clock, board power and TFLOPS per watt (default 0: off)
  --json FILE           also write the result as a results file
  --trace FILE          (trace build only) write the last launch's timeline: each role's
                        state changes in the traced CTAs, for plots/timeline.py
  --trace-ctas N        trace CTAs 0 .. N-1, N from 1 to )" +
         std::to_string(max_trace_ctas) + R"( (default 1)
  --help                this text

exit codes: 0 pass, 1 wrong result or failure, 2 bad arguments, 3 no usable GPU,
            4 a shape this kernel cannot run (a peer's own rule, such as N % 8 == 0)
)";
}

HeadToHeadOptions parse_head_to_head_options(const std::vector<std::string>& args,
                                             const std::vector<std::string>& known_versions) {
  HeadToHeadOptions o;
  ArgReader r(args);
  while (r.next()) {
    const std::string& f = r.flag();
    if (f == "--versions")
      o.versions = split(f, r.take());
    else if (f == "--rounds")
      o.rounds = parse_count(f, r.take(), 1, 100);
    else if (f == "--help" || f == "-h")
      o.help = r.take_switch();
    else if (!parse_workload_flag(r, o.sizes, o.dtypes) && !parse_timing_flag(r, o.timing))
      r.unknown();
  }
  if (o.help) return o;
  if (o.versions.size() != 2 || o.versions[0] == o.versions[1]) {
    std::string given;
    for (const std::string& v : o.versions) given += (given.empty() ? "" : ",") + v;
    bad("--versions", "'" + given + "'", "expected two different kernels, A,B");
  }
  check_known(o.versions, known_versions);
  return o;
}

std::string ladder_usage(const std::string& program) {
  return "usage: " + program + R"( [flags]
Runs every registered version, the peers (someone else's kernels, for reference) and cuBLAS
in one process over square sizes and both dtypes, checks and times each run against cuBLAS,
prints a progress line per run and a final table, and writes a results file.

  --suite llm           instead of the square sizes, the linear layers of Llama-3 8B and 70B
                        (y = x·Wᵀ: 8 weight shapes, M = 1 to 8192 tokens) for the versions
                        from )" +
         std::string(llm_first_rung) + R"( on, the peers and cuBLAS, the L2 flushed before every
                        timed launch; also measures the HBM read limit; prints a line per
                        shape and a summary per dtype and kernel
  --versions A,B,...    only these versions or peers (see --list); cuBLAS always runs
  --sizes S1,S2,...     square sizes (default 512,1024,2048,4096,8192,16384)
  --dtypes fp16,bf16    element types (default both)
  --warmup W            untimed launches before timing, within 1 s (default 10)
  --iters I             timed launches per run, at least )" +
         std::to_string(min_iters) + R"( (default )" + std::to_string(min_iters) + R"()
  --budget SECONDS      skip a run predicted to take longer (default 60)
  --sustain S           at 8192^3, also run each version and cuBLAS alone for S seconds and
                        record clock, board power and TFLOPS per watt (default 2; 0: off)
  --out FILE            results file (default results/<gpu>.json, with --suite llm
                        results/<gpu>_llm.json; required with --versions, --sizes or
                        --dtypes, so a partial run never replaces it)
  --list                print the registered versions (with --suite, the suite's) and exit
  --help                this text

--sizes, --budget and --sustain are the square sizes' alone: --suite refuses them.
)";
}

std::string head_to_head_usage(const std::string& program) {
  return "usage: " + program + R"( --versions A,B [flags]
Times two kernels (versions, peers or cublas) against each other in one process, launch by
launch: A, B, A, B, ... after a warm-up, in rounds that alternate which one goes first. Under a
power cap each kernel sets the clock the other runs at too, so this pairing, not each one's ratio
to its own cuBLAS launches, says which is faster. Both are checked first. Prints each round's
medians and B/A (above 1: A is faster), then the median of the rounds.

  --versions A,B        the two kernels (see build/bin/ladder --list)
  --sizes S1,S2,...     square sizes (default 4096,8192,16384)
  --dtypes fp16,bf16    element types (default both)
  --warmup W            untimed launches of each before timing, within 1 s (default 10)
  --iters I             timed pairs per round, at least )" +
         std::to_string(min_iters) + R"( (default 100)
  --rounds R            rounds per size and dtype, 1 to 100 (default 4)
  --help                this text
)";
}

std::string fp8_usage(const std::string& program) {
  return "usage: " + program +
         " [--sizes S,S,... | --m M --n N --k K] [--scales tensor,block] [--warmup N] [--iters N]\n"
         "       [--sustain SECONDS] [--no-check] [--json FILE]\n"
         "       " +
         program +
         " --precision [--json FILE]   the accumulation error over K\n"
         "C (bf16) = A·Bᵀ with A and B in e4m3, checked against an fp64 reference and timed against\n"
         "cuBLASLt's FP8 GEMM (with its promotion, and with fast accumulation), the block-scaled form\n"
         "also against the per-tensor form, launch by launch. Defaults: sizes 4096,8192,16384, both\n"
         "scalings, 10 warm-up and 30 timed launches of each kernel.\n";
}

std::string tensor_parallel_usage(const std::string& program) {
  return "usage: " + program +
         " [--devices 0,1] [--dtype fp16|bf16] [--m M,M,...] [--iters N] [--json FILE]\n"
         "       " +
         program +
         " --chunk-cost P [--m M,M,...]   one GPU, no communication\n"
         "Llama-3 70B's tensor-parallel layers (gate_up, down, o_proj) over a rank per GPU listed: each\n"
         "layer in its three forms (sequential, chunked, storer), against the GEMM alone and NCCL's\n"
         "collective alone. With --chunk-cost, the chunked forms' GEMMs for P ranks against one GEMM.\n"
         "Defaults: device 0, fp16, M 2048,8192,32768, 10 timed launches.\n";
}

}  // namespace matmul
