// The shared CLI: defaults, every flag, and one clear refusal for each kind of bad argument.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "common/harness/cli.h"

using namespace matmul;
using Catch::Matchers::ContainsSubstring;

namespace {
Options parse(std::vector<std::string> args) { return parse_options(args); }
LadderOptions parse_ladder(std::vector<std::string> args) { return parse_ladder_options(args); }
}  // namespace

TEST_CASE("version CLI defaults to 8192 cubed fp16 with at least 20 timed launches") {
  const Options o = parse({});
  CHECK(o.shape.m == 8192);
  CHECK(o.shape.n == 8192);
  CHECK(o.shape.k == 8192);
  CHECK(o.dtype == DType::fp16);
  CHECK(o.timing.iters >= min_iters);
  CHECK(o.check);
  CHECK(o.json.empty());
}

TEST_CASE("version CLI reads every flag, in both --flag value and --flag=value form") {
  const Options o = parse({"--m", "100", "--n=200", "--k", "64", "--dtype", "bf16", "--warmup=3", "--iters", "25",
                           "--no-check", "--json", "out.json"});
  CHECK(o.shape.m == 100);
  CHECK(o.shape.n == 200);
  CHECK(o.shape.k == 64);
  CHECK(o.dtype == DType::bf16);
  CHECK(o.timing.warmup == 3);
  CHECK(o.timing.iters == 25);
  CHECK_FALSE(o.check);
  CHECK(o.json == "out.json");

  const Options sized = parse({"--size", "4096"});
  CHECK((sized.shape.m == 4096 && sized.shape.n == 4096 && sized.shape.k == 4096));
  CHECK(parse({"--size", "512", "--k", "8"}).shape.k == 8);  // later flags win
  CHECK(parse({"--help"}).help);
}

TEST_CASE("version CLI refuses bad arguments with one line naming the value and the rule") {
  const auto refuses = [](std::vector<std::string> args, const std::string& text) {
    INFO("args: " << args.front());
    CHECK_THROWS_WITH(parse(args), ContainsSubstring(text));
  };
  refuses({"--k", "7"}, "K = 7 is invalid: K must be at least 8");
  refuses({"--k", "12"}, "K = 12 is invalid: K must be a multiple of 8");
  refuses({"--m", "0"}, "M = 0 is invalid: M must be at least 1");
  refuses({"--n", "-5"}, "N = -5 is invalid: N must be at least 1");
  refuses({"--dtype", "fp32"}, "--dtype 'fp32' is invalid: expected fp16 or bf16");
  refuses({"--size", "abc"}, "--size 'abc' is invalid: expected an integer");
  refuses({"--size", "12x"}, "--size '12x' is invalid: expected an integer");
  refuses({"--size", "99999999999999999999"}, "out of range");
  refuses({"--size", "4294967296"}, "M must be below 2^31");
  refuses({"--iters", "5"}, "--iters 5 is invalid: must be between 20 and 1000000");
  refuses({"--warmup", "-1"}, "--warmup -1 is invalid");
  refuses({"--foo"}, "unknown flag --foo");
  refuses({"--m"}, "--m needs a value");
  refuses({"--no-check=yes"}, "--no-check takes no value");
  refuses({"4096"}, "unexpected argument '4096'");
}

TEST_CASE("version CLI messages are a single line") {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--k", "7"}, {"--dtype", "x"}, {"--bogus"}}) {
    try {
      parse(args);
      FAIL("accepted " << args.front());
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("ladder CLI reads versions, sizes, dtypes, budget and output") {
  const LadderOptions d = parse_ladder({});
  CHECK(d.versions.empty());
  CHECK(d.sizes == std::vector<int64_t>{512, 1024, 2048, 4096, 8192, 16384});
  CHECK(d.dtypes.size() == 2);

  const LadderOptions o = parse_ladder({"--versions", "v0_naive,cublas", "--sizes=256,1024", "--dtypes", "bf16",
                                        "--budget", "5", "--out", "x.json", "--iters", "25", "--list"});
  CHECK(o.versions == std::vector<std::string>{"v0_naive", "cublas"});
  CHECK(o.sizes == std::vector<int64_t>{256, 1024});
  CHECK(o.dtypes == std::vector<DType>{DType::bf16});
  CHECK(o.budget_s == 5);
  CHECK(o.out == "x.json");
  CHECK(o.timing.iters == 25);
  CHECK(o.list);
}

TEST_CASE("a restricted ladder run needs its own output file") {
  CHECK_THROWS_WITH(parse_ladder({"--versions", "v0_naive"}), ContainsSubstring("needs --out FILE"));
  CHECK_THROWS_WITH(parse_ladder({"--sizes", "1024"}), ContainsSubstring("needs --out FILE"));
  CHECK_THROWS_WITH(parse_ladder({"--dtypes", "bf16"}), ContainsSubstring("needs --out FILE"));
  CHECK_NOTHROW(parse_ladder({"--sizes", "1024", "--out", "/tmp/partial.json"}));
  CHECK_NOTHROW(parse_ladder({"--versions", "v0_naive", "--list"}));
  CHECK_NOTHROW(parse_ladder({"--iters", "25", "--budget", "10"}));  // the whole workload: the default file
}

TEST_CASE("ladder CLI refuses bad lists and sizes") {
  CHECK_THROWS_WITH(parse_ladder({"--sizes", "512,,1024", "--out", "x"}), ContainsSubstring("without empty items"));
  CHECK_THROWS_WITH(parse_ladder({"--sizes", "500", "--out", "x"}),
                    ContainsSubstring("--sizes 500: K = 500 is invalid"));
  CHECK_THROWS_WITH(parse_ladder({"--dtypes", "fp16,int8", "--out", "x"}), ContainsSubstring("'int8' is invalid"));
  CHECK_THROWS_WITH(parse_ladder({"--budget", "0"}), ContainsSubstring("--budget 0 is invalid"));
  CHECK_THROWS_WITH(parse_ladder({"--size", "512"}), ContainsSubstring("unknown flag --size"));
}
