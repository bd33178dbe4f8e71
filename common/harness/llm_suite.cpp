#include "common/harness/llm_suite.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace matmul {

std::string layer_name(int64_t n, int64_t k) {
  for (const Layer& layer : llm_layers)
    if (layer.n == n && layer.k == k) return layer.name;
  return "";
}

std::vector<const Version*> llm_kernels(const std::vector<const Version*>& all, const std::vector<std::string>& names) {
  const auto first = std::find_if(all.begin(), all.end(), [](const Version* v) { return v->name == llm_first_rung; });
  if (first == all.end())
    throw std::logic_error(std::string("the LLM suite starts at ") + llm_first_rung + ", not registered");
  const std::vector<const Version*> suite(first, all.end());
  const auto in_suite = [&](const std::string& name) {
    return std::any_of(suite.begin(), suite.end(), [&](const Version* v) { return v->name == name; });
  };
  for (const std::string& name : names) {
    if (in_suite(name)) continue;
    std::string list;
    for (const Version* v : suite) list += (list.empty() ? "" : ", ") + v->name;
    throw std::invalid_argument("--versions '" + name +
                                "' is invalid: not a kernel of --suite llm (its kernels: " + list + ")");
  }
  if (names.empty()) return suite;
  std::vector<const Version*> chosen;
  for (const Version* v : suite)  // the baseline always runs
    if (v->name == "cublas" || std::find(names.begin(), names.end(), v->name) != names.end()) chosen.push_back(v);
  return chosen;
}

double weight_bytes(int64_t n, int64_t k) { return double(n) * double(k) * dtype_bytes; }

double weight_gbps(const RunRecord& r) { return weight_bytes(r.n, r.k) / (r.ms_median * 1e-3) / 1e9; }

std::vector<SuiteSummary> summarize_suite(const std::vector<RunRecord>& runs) {
  std::vector<SuiteSummary> summaries;
  for (const RunRecord& first : runs) {
    const auto same = [&](const auto& x) { return x.version == first.version && x.dtype == first.dtype; };
    if (std::any_of(summaries.begin(), summaries.end(), same)) continue;
    SuiteSummary s;
    s.version = first.version;
    s.dtype = first.dtype;
    double log_sum = 0;
    for (const RunRecord& r : runs) {
      if (!same(r)) continue;
      log_sum += std::log(r.ratio_vs_cublas);
      if (s.runs++ == 0 || r.ratio_vs_cublas < s.worst_ratio) {
        s.worst_ratio = r.ratio_vs_cublas;
        s.worst_shape = {r.m, r.n, r.k};
      }
      const double tbps = weight_gbps(r) / 1e3;
      if (r.m <= summary_max_m && weight_bytes(r.n, r.k) >= large_layer_bytes &&
          tbps < s.min_weight_tbps.value_or(std::numeric_limits<double>::infinity())) {
        s.min_weight_tbps = tbps;
        s.min_weight_shape = {r.m, r.n, r.k};
        s.min_weight_read_tbps = r.read_gbps ? std::optional<double>(*r.read_gbps / 1e3) : std::nullopt;
      }
    }
    s.geomean_ratio = std::exp(log_sum / s.runs);
    summaries.push_back(s);
  }
  return summaries;
}

}  // namespace matmul
