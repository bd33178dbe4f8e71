#include "common/harness/cli.h"

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <stdexcept>

namespace matmul {

namespace {

[[noreturn]] void bad(const std::string& flag, const std::string& value, const std::string& rule) {
  throw std::invalid_argument(flag + " " + value + " is invalid: " + rule);
}

int64_t parse_integer(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') bad(flag, "'" + text + "'", "expected an integer");
  if (errno == ERANGE) bad(flag, text, "out of range");
  return v;
}

int parse_count(const std::string& flag, const std::string& text, int min) {
  const int64_t v = parse_integer(flag, text);
  if (v < min || v > 1000000) bad(flag, text, "must be between " + std::to_string(min) + " and 1000000");
  return int(v);
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
  void no_value() const {
    if (inline_value_) throw std::invalid_argument(flag_ + " takes no value");
  }
  [[noreturn]] void unknown() const { throw std::invalid_argument("unknown flag " + flag_ + " (see --help)"); }

 private:
  const std::vector<std::string>& args_;
  size_t i_ = 0;
  std::string flag_;
  std::optional<std::string> inline_value_;
};

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
  while (r.next()) {
    const std::string& f = r.flag();
    if (f == "--m")
      o.shape.m = parse_integer(f, r.take());
    else if (f == "--n")
      o.shape.n = parse_integer(f, r.take());
    else if (f == "--k")
      o.shape.k = parse_integer(f, r.take());
    else if (f == "--size")
      o.shape.m = o.shape.n = o.shape.k = parse_integer(f, r.take());
    else if (f == "--dtype")
      o.dtype = parse_dtype_flag(f, r.take());
    else if (f == "--json")
      o.json = r.take();
    else if (f == "--no-check")
      r.no_value(), o.check = false;
    else if (f == "--help" || f == "-h")
      r.no_value(), o.help = true;
    else if (!parse_timing_flag(r, o.timing))
      r.unknown();
  }
  if (!o.help) validate_shape(o.shape);
  return o;
}

LadderOptions parse_ladder_options(const std::vector<std::string>& args) {
  LadderOptions o;
  bool restricted = false;  // a subset of the default workload
  ArgReader r(args);
  while (r.next()) {
    const std::string& f = r.flag();
    restricted = restricted || f == "--versions" || f == "--sizes" || f == "--dtypes";
    if (f == "--versions") {
      o.versions = split(f, r.take());
    } else if (f == "--sizes") {
      o.sizes.clear();
      for (const std::string& s : split(f, r.take())) {
        o.sizes.push_back(parse_integer(f, s));
        try {
          validate_shape({o.sizes.back(), o.sizes.back(), o.sizes.back()});
        } catch (const std::invalid_argument& e) {
          throw std::invalid_argument(f + " " + s + ": " + e.what());
        }
      }
    } else if (f == "--dtypes") {
      o.dtypes.clear();
      for (const std::string& s : split(f, r.take())) o.dtypes.push_back(parse_dtype_flag(f, s));
    } else if (f == "--budget") {
      o.budget_s = double(parse_count(f, r.take(), 1));
    } else if (f == "--out") {
      o.out = r.take();
    } else if (f == "--list") {
      r.no_value(), o.list = true;
    } else if (f == "--help" || f == "-h") {
      r.no_value(), o.help = true;
    } else if (!parse_timing_flag(r, o.timing)) {
      r.unknown();
    }
  }
  if (restricted && o.out.empty() && !o.list && !o.help)
    throw std::invalid_argument(
        "a run restricted by --versions, --sizes or --dtypes needs --out FILE: the default file, "
        "results/<gpu>.json, holds the whole ladder that the docs and plots are made from");
  return o;
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
  --json FILE           also write the result as a results file
  --help                this text

exit codes: 0 pass, 1 wrong result or failure, 2 bad arguments, 3 no usable GPU
)";
}

std::string ladder_usage(const std::string& program) {
  return "usage: " + program + R"( [flags]
Runs every registered version and cuBLAS in one process over square sizes and both dtypes,
checks and times each run against cuBLAS, prints a progress line per run and a final table,
and writes a results file.

  --versions A,B,...    only these versions (see --list); cuBLAS always runs
  --sizes S1,S2,...     square sizes (default 512,1024,2048,4096,8192,16384)
  --dtypes fp16,bf16    element types (default both)
  --warmup W            untimed launches before timing, within 1 s (default 10)
  --iters I             timed launches per run, at least )" +
         std::to_string(min_iters) + R"( (default )" + std::to_string(min_iters) + R"()
  --budget SECONDS      skip a run predicted to take longer (default 60)
  --out FILE            results file (default results/<gpu>.json; required with
                        --versions, --sizes or --dtypes, so a partial run never replaces it)
  --list                print the registered versions and exit
  --help                this text
)";
}

}  // namespace matmul
