// The ladder's LLM suite (build/bin/ladder --suite llm): the linear layers of Llama-3 8B and 70B,
// y = x·Wᵀ with the tokens x as A (M×K) and the weights W as B (N×K), at batch sizes from one token
// (decode) to 8192 (prefill); which kernels it runs, and what it reports of them. Host code only.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/harness/results.h"
#include "common/problem.h"
#include "common/version.h"

namespace matmul {

// One weight matrix W (N×K). The fused projections are one GEMM each, as inference engines run them:
// qkv is q, k and v (grouped-query attention: 8 key-value heads of 128), gate_up is the MLP's gate and up.
struct Layer {
  const char* name;
  int64_t n, k;
};

inline constexpr Layer llm_layers[] = {
    {"8B qkv", 6144, 4096},   {"8B o", 4096, 4096},  {"8B gate_up", 28672, 4096},  {"8B down", 4096, 14336},
    {"70B qkv", 10240, 8192}, {"70B o", 8192, 8192}, {"70B gate_up", 57344, 8192}, {"70B down", 8192, 28672},
};

// M, the tokens of one forward pass: decode batches, then prefill chunks.
inline constexpr int64_t llm_tokens[] = {1, 16, 64, 128, 512, 2048, 8192};

// Runs up to this M record their weight bandwidth: they read 2·N·K bytes of W for 2·M·N·K FLOP, M FLOP
// a byte, below the H200's 200 or so (989 TFLOPS over 4.8 TB/s), so W's bandwidth is what bounds them.
inline constexpr int64_t bandwidth_max_m = 128;
// The summary's bandwidth figure: decode batches on the layers big enough to stream W at the HBM limit.
inline constexpr int64_t summary_max_m = 16;
inline constexpr double large_layer_bytes = 100e6;

// The first rung the suite runs: the first whose epilogue stores C through TMA, as a production kernel
// does; every registered version after it runs too, whatever its name, then the peers and cuBLAS.
inline constexpr const char* llm_first_rung = "v6_tma_store";

// The layer's name ("70B gate_up"), or "" for a shape that is none of llm_layers.
std::string layer_name(int64_t n, int64_t k);

// The suite's kernels among `all` (all_kernels(): the versions in ladder order, the peers, cuBLAS): each
// from llm_first_rung on, in that order; only those `names` lists, and cuBLAS, when it lists any.
// Refuses a name that is not one of them (std::invalid_argument naming it and the suite's kernels);
// throws std::logic_error when llm_first_rung is not in `all`.
std::vector<const Version*> llm_kernels(const std::vector<const Version*>& all,
                                        const std::vector<std::string>& names = {});

// Bytes of W, and W's bandwidth in GB/s (10^9 bytes a second) over a run's median time.
double weight_bytes(int64_t n, int64_t k);
double weight_gbps(const RunRecord& r);

// One kernel in one dtype over the suite's runs.
struct SuiteSummary {
  std::string version;
  DType dtype = DType::fp16;
  int runs = 0;
  double geomean_ratio = 0;  // the geometric mean of ratio_vs_cublas
  double worst_ratio = 0;  // the lowest ratio_vs_cublas, and its shape
  Shape worst_shape{0, 0, 0};
  // The lowest weight bandwidth in TB/s over the runs at M <= summary_max_m on layers of at least
  // large_layer_bytes; absent without such a run. With it, that run's shape and its read_gbps in TB/s
  // (a plain read of the same bytes), where the run has one.
  std::optional<double> min_weight_tbps, min_weight_read_tbps;
  Shape min_weight_shape{0, 0, 0};
};

// One summary per dtype and kernel, in the order `runs` first names them.
std::vector<SuiteSummary> summarize_suite(const std::vector<RunRecord>& runs);

}  // namespace matmul
