// The shared CLI: defaults, every flag, and one clear refusal for each kind of bad argument.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/harness/cli.h"
#include "common/harness/harness.h"

using namespace matmul;
using Catch::Matchers::ContainsSubstring;

namespace {
Options parse(std::vector<std::string> args) { return parse_options(args); }
LadderOptions parse_ladder(std::vector<std::string> args) {
  return parse_ladder_options(args, {"v0_naive", "v1_tma", "v3_warpspec", "cublas"});
}

// A fresh folder of its own, removed with everything in it at the end of the test.
struct ScratchFolder {
  ScratchFolder() {
    std::string name = (std::filesystem::temp_directory_path() / "test_cli_XXXXXX").string();
    REQUIRE(mkdtemp(name.data()) != nullptr);
    path = name;
  }
  ~ScratchFolder() { std::filesystem::remove_all(path); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::recursive_directory_iterator(path)) names.push_back(e.path().string());
    return names;
  }
  std::filesystem::path path;
};
}  // namespace

TEST_CASE("version CLI defaults to 8192 cubed fp16 with at least 20 timed launches") {
  const Options o = parse({});
  CHECK(o.shape.m == 8192);
  CHECK(o.shape.n == 8192);
  CHECK(o.shape.k == 8192);
  CHECK(o.dtype == DType::fp16);
  CHECK(o.timing.iters >= min_iters);
  CHECK(o.check);
  CHECK(o.queue);
  CHECK(o.json.empty());
}

TEST_CASE("version CLI reads every flag, in both --flag value and --flag=value form") {
  const Options o = parse({"--m", "100", "--n=200", "--k", "64", "--dtype", "bf16", "--warmup=3", "--iters", "25",
                           "--no-check", "--no-queue", "--json", "out.json"});
  CHECK(o.shape.m == 100);
  CHECK(o.shape.n == 200);
  CHECK(o.shape.k == 64);
  CHECK(o.dtype == DType::bf16);
  CHECK(o.timing.warmup == 3);
  CHECK(o.timing.iters == 25);
  CHECK_FALSE(o.check);
  CHECK_FALSE(o.queue);
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
  refuses({"--size", "99999999999999999999"},
          "--size 99999999999999999999 is invalid: out of range: each dimension "
          "must be below 2^31");
  refuses({"--size", "4294967296"}, "M must be below 2^31");
  refuses({"--iters", "5"}, "--iters 5 is invalid: must be between 20 and 1000000");
  refuses({"--warmup", "-1"}, "--warmup -1 is invalid");
  refuses({"--foo"}, "unknown flag --foo");
  refuses({"--m"}, "--m needs a value");
  refuses({"--no-check=yes"}, "--no-check takes no value");
  refuses({"--no-queue=1"}, "--no-queue takes no value");
  refuses({"4096"}, "unexpected argument '4096'");
}

TEST_CASE("a dimension out of range is refused naming the flag that set it and the 2^31 limit") {
  // 99999999999 is not a multiple of 8 either: the limit is the rule to report, and the flag.
  CHECK_THROWS_WITH(parse({"--size", "99999999999"}),
                    "--size 99999999999: M = 99999999999 is invalid: M must be below 2^31");
  CHECK_THROWS_WITH(parse({"--m", "2147483648"}), "--m 2147483648: M = 2147483648 is invalid: M must be below 2^31");
  CHECK_THROWS_WITH(parse({"--n=3000000000"}), "--n 3000000000: N = 3000000000 is invalid: N must be below 2^31");
  CHECK_THROWS_WITH(parse({"--k", "4294967296"}), "--k 4294967296: K = 4294967296 is invalid: K must be below 2^31");
  CHECK_THROWS_WITH(parse({"--size", "64", "--k", "12"}), ContainsSubstring("--k 12: K = 12 is invalid"));
  CHECK_THROWS_WITH(parse({"--k", "12", "--size", "64", "--m", "0"}), ContainsSubstring("--m 0: M = 0 is invalid"));
  CHECK(parse({"--m", "2147483647", "--n", "1", "--k", "2147483640"}).shape.m == 2147483647);  // the largest
  CHECK_THROWS_WITH(parse_ladder({"--sizes", "1024,99999999999", "--out", "x.json"}),
                    "--sizes 99999999999: M = 99999999999 is invalid: M must be below 2^31");
}

TEST_CASE("a --json FILE whose folder cannot be written is refused before any GPU work, and nothing is created") {
  ScratchFolder scratch;
  const std::string file = (scratch.path / "x.json").string();
  CHECK(parse({"--json", file}).json == file);
  CHECK(parse({"--json", "relative.json"}).json == "relative.json");  // the working directory

  const std::string missing = (scratch.path / "nonexistent" / "dir" / "x.json").string();
  CHECK_THROWS_WITH(parse({"--json", missing}), "--json " + missing + " is invalid: its folder " +
                                                    (scratch.path / "nonexistent" / "dir").string() +
                                                    " does not exist");
  CHECK_THROWS_WITH(parse({"--json", "/nonexistent/dir/x.json"}),
                    "--json /nonexistent/dir/x.json is invalid: its folder /nonexistent/dir does not exist");
  CHECK_THROWS_WITH(parse({"--json", scratch.path.string()}), ContainsSubstring("expected a file name, not a folder"));
  CHECK_THROWS_WITH(parse({"--json", file + "/"}), ContainsSubstring("expected a file name, not a folder"));
  CHECK_THROWS_WITH(parse({"--json", ""}), "--json '' is invalid: expected a file name");

  std::ofstream(scratch.path / "plain").put('x');  // a file where a folder should be
  CHECK_THROWS_WITH(parse({"--json", (scratch.path / "plain" / "x.json").string()}),
                    ContainsSubstring("is invalid: " + (scratch.path / "plain").string() + " is not a folder"));
  if (geteuid() != 0) {  // root writes anywhere: the mode bits refuse only others
    std::filesystem::create_directory(scratch.path / "locked");
    std::filesystem::permissions(scratch.path / "locked",
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    CHECK_THROWS_WITH(parse({"--json", (scratch.path / "locked" / "x.json").string()}),
                      ContainsSubstring("is invalid: " + (scratch.path / "locked").string() + " is not writable"));
    std::filesystem::permissions(scratch.path / "locked", std::filesystem::perms::owner_all);
  }
  CHECK(parse({"--json", missing, "--help"}).help);  // --help looks at nothing else
  CHECK(scratch.entries().size() == (geteuid() != 0 ? 2 : 1));  // "plain" (and "locked"): nothing written
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

TEST_CASE("ladder CLI refuses an unknown version first, naming the registered ones") {
  CHECK_THROWS_WITH(parse_ladder({"--versions", "nope"}),
                    "--versions 'nope' is invalid: not a registered version (registered: v0_naive, v1_tma, "
                    "v3_warpspec, cublas)");
  CHECK_THROWS_WITH(parse_ladder({"--versions", "v1_tma,v9", "--out", "x.json"}), ContainsSubstring("'v9' is invalid"));
  CHECK_THROWS_WITH(parse_ladder({"--versions", "nope", "--list"}), ContainsSubstring("'nope' is invalid"));
  CHECK_NOTHROW(parse_ladder({"--versions", "nope", "--help"}));  // --help looks at nothing else
}

TEST_CASE("ladder --out FILE is refused when its folder can be neither written nor created; nothing is created") {
  ScratchFolder scratch;
  const std::string nested = (scratch.path / "new" / "deeper" / "x.json").string();
  CHECK(parse_ladder({"--sizes", "512", "--out", nested}).out == nested);  // the ladder creates the folder later
  std::ofstream(scratch.path / "plain").put('x');
  const std::string under_file = (scratch.path / "plain" / "sub" / "x.json").string();
  CHECK_THROWS_WITH(parse_ladder({"--sizes", "512", "--out", under_file}),
                    "--out " + under_file + " is invalid: its folder " + (scratch.path / "plain" / "sub").string() +
                        " cannot be created: " + (scratch.path / "plain").string() + " is not a folder");
  CHECK_THROWS_WITH(parse_ladder({"--out", scratch.path.string()}),
                    ContainsSubstring("expected a file name, not a folder"));
  CHECK_THROWS_WITH(parse_ladder({"--out="}), "--out '' is invalid: expected a file name");
  CHECK_NOTHROW(parse_ladder({"--out", under_file, "--list"}));  // --list writes nothing
  CHECK(scratch.entries().size() == 1);  // only "plain": no folder was made to find out
}

TEST_CASE("ladder CLI refuses bad lists and sizes") {
  CHECK_THROWS_WITH(parse_ladder({"--sizes", "512,,1024", "--out", "x"}), ContainsSubstring("without empty items"));
  CHECK_THROWS_WITH(parse_ladder({"--sizes", "500", "--out", "x"}),
                    ContainsSubstring("--sizes 500: K = 500 is invalid"));
  CHECK_THROWS_WITH(parse_ladder({"--dtypes", "fp16,int8", "--out", "x"}), ContainsSubstring("'int8' is invalid"));
  CHECK_THROWS_WITH(parse_ladder({"--budget", "0"}), ContainsSubstring("--budget 0 is invalid"));
  CHECK_THROWS_WITH(parse_ladder({"--size", "512"}), ContainsSubstring("unknown flag --size"));
}

TEST_CASE("ladder --suite llm writes its own file; an unknown suite is refused naming it, with exit code 2") {
  CHECK(parse_ladder({}).suite.empty());
  const LadderOptions o = parse_ladder({"--suite", "llm"});
  CHECK(o.suite == "llm");
  CHECK(ladder_results_file(o, "h200") == "results/h200_llm.json");
  CHECK(ladder_results_file(parse_ladder({}), "h200") == "results/h200.json");
  const LadderOptions partial =
      parse_ladder({"--suite=llm", "--versions", "cublas", "--dtypes", "bf16", "--out", "x.json"});
  CHECK(partial.suite == "llm");
  CHECK(partial.dtypes == std::vector<DType>{DType::bf16});
  CHECK(ladder_results_file(partial, "h200") == "x.json");

  CHECK_THROWS_WITH(parse_ladder({"--suite", "gpt"}),
                    "--suite 'gpt' is invalid: expected llm (the Llama-3 8B and 70B linear layers)");
  CHECK_THROWS_WITH(parse_ladder({"--suite="}), ContainsSubstring("--suite '' is invalid"));
  CHECK_THROWS_WITH(parse_ladder({"--suite"}), "--suite needs a value (see --help)");
  CHECK(run_guarded("ladder", [] { return int(parse_ladder({"--suite", "gpt"}).list); }) == exit_bad_arguments);
  CHECK(run_guarded("ladder", [] { return int(parse_ladder({"--suite", "llm"}).list); }) == exit_pass);

  // The suite's own default file, which a partial run must not replace.
  CHECK_THROWS_WITH(parse_ladder({"--suite", "llm", "--dtypes", "fp16"}),
                    ContainsSubstring("the default file, results/<gpu>_llm.json, holds the whole suite"));
  // The square sizes' flags mean nothing to the suite: refused, not ignored.
  for (const char* flag : {"--sizes=512", "--budget=10", "--sustain=0"}) {
    INFO(flag);
    CHECK_THROWS_WITH(parse_ladder({"--suite", "llm", flag, "--out", "x.json"}),
                      ContainsSubstring(std::string(flag).substr(0, std::string(flag).find('=')) +
                                        " is a flag of the square sizes, not of --suite llm"));
  }
  CHECK_THAT(ladder_usage("ladder"), ContainsSubstring("--suite llm") && ContainsSubstring("results/<gpu>_llm.json"));
}

TEST_CASE("each kind of failure has its own exit code and a shape a peer cannot run exits 4") {
  const auto exit_code = [](auto thrown) { return run_guarded("test", [&]() -> int { throw thrown; }); };
  CHECK(exit_code(std::invalid_argument("bad")) == exit_bad_arguments);
  CHECK(exit_code(NotImplemented("CUTLASS's TMA kernels cannot run 16x12x16")) == exit_not_implemented);
  CHECK(exit_code(std::runtime_error("other")) == exit_failed);
  CHECK(exit_not_implemented == 4);  // docs/design.md's table
}

TEST_CASE("head_to_head CLI takes two kernels, sizes, dtypes, timing and rounds") {
  const std::vector<std::string> known{"v6_tma_store", "v7_multicast", "cutlass_pingpong", "cublas"};
  const HeadToHeadOptions d = parse_head_to_head_options({"--versions", "v7_multicast,cutlass_pingpong"}, known);
  CHECK(d.versions == std::vector<std::string>{"v7_multicast", "cutlass_pingpong"});
  CHECK(d.sizes == std::vector<int64_t>{4096, 8192, 16384});
  CHECK(d.dtypes.size() == 2);
  CHECK(d.timing.iters == 100);
  CHECK(d.rounds == 4);
  const HeadToHeadOptions o = parse_head_to_head_options(
      {"--versions=cublas,v6_tma_store", "--sizes", "8192", "--dtypes", "bf16", "--iters", "40", "--rounds", "2"},
      known);
  CHECK(o.sizes == std::vector<int64_t>{8192});
  CHECK(o.dtypes == std::vector<DType>{DType::bf16});
  CHECK(o.timing.iters == 40);
  CHECK(o.rounds == 2);
}

TEST_CASE("head_to_head CLI refuses anything but two different known kernels, and bad counts") {
  const std::vector<std::string> known{"v6_tma_store", "v7_multicast", "cublas"};
  const auto refused = [&](std::vector<std::string> args) {
    try {
      parse_head_to_head_options(args, known);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK_THAT(refused({}), ContainsSubstring("--versions '' is invalid: expected two different kernels, A,B"));
  CHECK_THAT(refused({"--versions", "v7_multicast"}), ContainsSubstring("expected two different kernels"));
  CHECK_THAT(refused({"--versions", "cublas,cublas"}), ContainsSubstring("--versions 'cublas,cublas' is invalid"));
  CHECK_THAT(refused({"--versions", "v7_multicast,v9_x"}),
             ContainsSubstring("--versions 'v9_x' is invalid: not a registered version (registered: v6_tma_store, "
                               "v7_multicast, cublas)"));
  CHECK_THAT(refused({"--versions", "v7_multicast,cublas", "--rounds", "0"}),
             ContainsSubstring("--rounds 0 is invalid: must be between 1 and 100"));
  CHECK_THAT(refused({"--versions", "v7_multicast,cublas", "--iters", "5"}), ContainsSubstring("--iters 5 is invalid"));
  CHECK_THAT(refused({"--versions", "v7_multicast,cublas", "--sizes", "0"}), ContainsSubstring("--sizes 0"));
  CHECK_THAT(refused({"--versions", "v7_multicast,cublas", "--out", "x"}), ContainsSubstring("unknown flag --out"));
}

TEST_CASE("tensor-parallel CLI reads devices, dtype, M, iters, chunk cost and output") {
  const TensorParallelOptions d = parse_tensor_parallel_options({});
  CHECK(d.devices == std::vector<int>{0});
  CHECK(d.dtype == DType::fp16);
  CHECK(d.ms == std::vector<int64_t>{2048, 8192, 32768});
  CHECK(d.iters == 10);
  CHECK(d.chunk_cost == 0);
  const TensorParallelOptions o = parse_tensor_parallel_options(
      {"--devices=0,1", "--dtype", "bf16", "--m", "4096,8192", "--iters", "5", "--json", "tp.json"});
  CHECK(o.devices == std::vector<int>{0, 1});
  CHECK(o.dtype == DType::bf16);
  CHECK(o.ms == std::vector<int64_t>{4096, 8192});
  CHECK(o.iters == 5);
  CHECK(o.json == "tp.json");
  CHECK(parse_tensor_parallel_options({"--devices", "0,0,0", "--m", "3"}).devices.size() == 3);  // loopback
  CHECK(parse_tensor_parallel_options({"--chunk-cost", "4", "--m", "8"}).chunk_cost == 4);
}

TEST_CASE("tensor-parallel CLI refuses a GPU listed twice, an M the ranks cannot share, and bad counts") {
  const auto refused = [](std::vector<std::string> args) {
    try {
      parse_tensor_parallel_options(args);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK_THAT(refused({"--devices", "0,1,0"}), ContainsSubstring("--devices 0,1,0 is invalid: a GPU is listed twice"));
  CHECK_THAT(refused({"--devices", "0,1", "--m", "3"}),
             ContainsSubstring("--m 3 is invalid: M must be a multiple of the 2 ranks"));
  CHECK_THAT(refused({"--chunk-cost", "3", "--m", "8"}), ContainsSubstring("multiple of the 3 ranks"));
  CHECK_THAT(refused({"--m", "0"}), ContainsSubstring("--m 0"));
  CHECK_THAT(refused({"--devices", "0,"}), ContainsSubstring("without empty items"));
  CHECK_THAT(refused({"--iters", "2"}), ContainsSubstring("--iters 2 is invalid: must be between 3"));
  CHECK_THAT(refused({"--iters", "3,4"}), ContainsSubstring("--iters '3,4' is invalid: expected an integer"));
  CHECK_THAT(refused({"--chunk-cost", "1"}), ContainsSubstring("--chunk-cost 1 is invalid: must be between 2 and 64"));
  CHECK_THAT(refused({"--json", "/nonexistent/x.json"}), ContainsSubstring("its folder /nonexistent does not exist"));
  CHECK_THAT(refused({"--size", "4096"}), ContainsSubstring("unknown flag --size"));
}
