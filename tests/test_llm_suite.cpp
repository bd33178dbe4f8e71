// The ladder's LLM suite without a GPU: its shapes, the kernels it picks, and its summary, computed
// from hand-made runs whose figures are worked out by hand.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cmath>

#include "bench/all_kernels.h"
#include "common/harness/bandwidth.h"
#include "common/harness/llm_suite.h"

using namespace matmul;
using Catch::Matchers::WithinRel;

namespace {

// A run of `version` on m×n×k: `ms` its median, `ratio` its ratio to cuBLAS.
RunRecord run(const std::string& version, DType t, int64_t m, int64_t n, int64_t k, double ms, double ratio) {
  RunRecord r;
  r.version = version;
  r.dtype = t;
  r.m = m, r.n = n, r.k = k;
  r.ms_median = ms;
  r.ratio_vs_cublas = ratio;
  return r;
}

// A kernel known by its name alone: the suite picks kernels by their place in the list.
Version named(const std::string& name) { return {name, "", MatmulFn<__half>{}, MatmulFn<__nv_bfloat16>{}, {}}; }

}  // namespace

TEST_CASE("the suite is the 8 linear layers of Llama-3 8B and 70B at 7 token counts, 6 of them 100 MB or more") {
  CHECK(std::size(llm_layers) * std::size(llm_tokens) == 56);
  CHECK(layer_name(6144, 4096) == "8B qkv");
  CHECK(layer_name(57344, 8192) == "70B gate_up");
  CHECK(layer_name(8192, 57344).empty());  // W is N×K: the transposed shape is no layer
  CHECK(weight_bytes(57344, 8192) == 939524096.0);
  // 8B's qkv (50 MB) and o (34 MB) are under 100 MB; every other layer is over.
  const auto large = std::count_if(std::begin(llm_layers), std::end(llm_layers),
                                   [](const Layer& l) { return weight_bytes(l.n, l.k) >= large_layer_bytes; });
  CHECK(large == 6);
}

TEST_CASE("the suite runs every kernel from v6_tma_store on, by its place in the ladder, then the peers and cuBLAS") {
  const Version v5 = named("v5_persistent"), v6 = named("v6_tma_store"), v6p = named("v6_tma_store_pingpong"),
                next = named("v10_next_rung"), peer = named("cutlass_x"), cublas = named("cublas");
  const std::vector<const Version*> all{&v5, &v6, &v6p, &next, &peer, &cublas};
  CHECK(llm_kernels(all) == std::vector<const Version*>{&v6, &v6p, &next, &peer, &cublas});
  CHECK(llm_kernels(all, {"v10_next_rung"}) == std::vector<const Version*>{&next, &cublas});
  CHECK_THROWS_WITH(llm_kernels(all, {"v6_tma_store", "v5_persistent"}),
                    "--versions 'v5_persistent' is invalid: not a kernel of --suite llm (its kernels: v6_tma_store, "
                    "v6_tma_store_pingpong, v10_next_rung, cutlass_x, cublas)");
  CHECK_THROWS_WITH(llm_kernels({&v5, &cublas}), Catch::Matchers::ContainsSubstring("v6_tma_store, not registered"));

  // The registry's: the ladder's tail from v6_tma_store, its alternative form among them, cuBLAS last.
  const std::vector<const Version*> every = all_kernels(), registered = llm_kernels(every);
  CHECK(registered.front()->name == "v6_tma_store");
  CHECK(std::equal(registered.begin(), registered.end(), every.end() - registered.size(), every.end()));
  const auto has = [&](const std::string& name) {
    return std::any_of(registered.begin(), registered.end(), [&](const Version* v) { return v->name == name; });
  };
  CHECK(has("v6_tma_store_pingpong"));
  CHECK_FALSE(has("v5_persistent"));
  CHECK(registered.back() == &cublas_version());
}

TEST_CASE("the summary: geometric mean and worst shape of the ratio, lowest W bandwidth at M <= 16 on large layers") {
  std::vector<RunRecord> runs{
      run("v6_tma_store", DType::fp16, 1, 57344, 8192, 0.25, 0.5),  // 939.5 MB of W in 0.25 ms: 3.758 TB/s
      run("v6_tma_store", DType::fp16, 16, 4096, 14336, 0.04, 2.0),  // 117.4 MB in 0.04 ms: 2.936 TB/s, the lowest
      run("v6_tma_store", DType::fp16, 1, 4096, 4096, 0.1, 1.0),  // 0.336 TB/s, but W is 33.6 MB: not counted
      run("v6_tma_store", DType::fp16, 64, 57344, 8192, 1.0, 4.0),  // 0.940 TB/s, but M = 64: not counted
      run("cublas", DType::fp16, 1, 57344, 8192, 0.125, 1.0),
      run("v6_tma_store", DType::bf16, 8192, 8192, 8192, 2.0, 0.8),  // a dtype of its own, no decode run
  };
  CHECK_THAT(weight_gbps(runs[0]), WithinRel(3758.096384, 1e-12));
  // The plain read of each run's W: the summary keeps the one of the run with the lowest bandwidth.
  runs[0].read_gbps = 4500.0;
  runs[1].read_gbps = 3480.0;
  runs[2].read_gbps = 2000.0;
  runs[3].read_gbps = 4500.0;

  const std::vector<SuiteSummary> s = summarize_suite(runs);
  REQUIRE(s.size() == 3);  // in the order the runs first name them
  CHECK((s[0].version == "v6_tma_store" && s[0].dtype == DType::fp16));
  CHECK(s[0].runs == 4);
  CHECK_THAT(s[0].geomean_ratio, WithinRel(std::sqrt(2.0), 1e-12));  // (0.5 · 2 · 1 · 4)^¼; the mean would be 1.875
  CHECK(s[0].worst_ratio == 0.5);
  CHECK((s[0].worst_shape.m == 1 && s[0].worst_shape.n == 57344 && s[0].worst_shape.k == 8192));
  REQUIRE(s[0].min_weight_tbps);
  CHECK_THAT(*s[0].min_weight_tbps, WithinRel(2.9360128, 1e-12));
  CHECK(s[0].min_weight_read_tbps == 3.48);  // 4096 × 14336's, not a larger layer's or a smaller M's
  CHECK((s[0].min_weight_shape.m == 16 && s[0].min_weight_shape.n == 4096 && s[0].min_weight_shape.k == 14336));

  CHECK((s[1].version == "cublas" && s[1].runs == 1 && s[1].geomean_ratio == 1.0));
  CHECK_THAT(s[1].min_weight_tbps.value_or(0), WithinRel(7.516192768, 1e-12));
  CHECK_FALSE(s[1].min_weight_read_tbps);  // its run has no read

  CHECK((s[2].version == "v6_tma_store" && s[2].dtype == DType::bf16));
  CHECK_THAT(s[2].geomean_ratio, WithinRel(0.8, 1e-12));
  CHECK((s[2].worst_ratio == 0.8 && s[2].worst_shape.m == 8192));
  CHECK_FALSE(s[2].min_weight_tbps);  // no run at M <= 16
  CHECK_FALSE(s[2].min_weight_read_tbps);

  CHECK(summarize_suite({}).empty());
}

TEST_CASE("the read kernel refuses a size it cannot read in whole 16-byte loads, before it touches the GPU") {
  CHECK_THROWS_WITH(read_sum(nullptr, 100),
                    "a read of 100 bytes: the read kernel reads multiples of 16 bytes");
}
