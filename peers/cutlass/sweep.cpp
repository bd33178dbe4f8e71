// build/bin/cutlass_sweep (-DMATMUL_PEER_SWEEP=ON): the sweep behind the peers' configurations.
// Every configuration of sweep_cooperative.cu and sweep_pingpong.cu, in every tile order (swizzle
// 1, 2, 4 and 8, along M and along N), verified and timed against cuBLAS in this process by the
// harness, at one shape and dtype: the version binaries' flags. One line per run; --json FILE
// writes every run to a results file, its config naming the tile, the cluster and the order.
// scripts/peer_sweep.sh runs it over sizes and dtypes and tabulates the ratios.
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/harness/gpu.h"
#include "common/harness/harness.h"
#include "peers/cutlass/sweep.h"

namespace cutlass_peers {

TileOrder sweep_order{1, raster_heuristic};

namespace {

long param(const matmul::Version& v, const std::string& name) {
  for (const matmul::Param& p : v.config)
    if (p.name == name) return p.value;
  throw std::logic_error(v.name + " records no " + name);
}

// "128x256x64 2x1 s4 N": the configuration and the order of a run, in the width of one column.
std::string configuration(const matmul::Version& v) {
  char text[64];
  std::snprintf(text, sizeof text, "%3ldx%3ldx%2ld %ldx%ld s%ld %c", param(v, "TILE_M"), param(v, "TILE_N"),
                param(v, "TILE_K"), param(v, "CLUSTER_M"), param(v, "CLUSTER_N"), param(v, "SWIZZLE"),
                param(v, "RASTER") == raster_along_m ? 'M' : 'N');
  return text;
}

int sweep(int argc, char** argv) {
  const matmul::Options o = matmul::parse_options(std::vector<std::string>(argv + 1, argv + argc));
  if (o.help) {
    std::cout << "The CUTLASS configuration sweep: each configuration in each tile order, one run each.\n"
              << matmul::usage(argv[0]);
    return matmul::exit_pass;
  }
  const matmul::DeviceInfo device = matmul::query_device();
  matmul::require_hopper(device);
  std::vector<matmul::Version> kernels = cooperative_sweep();
  for (const matmul::Version& v : pingpong_sweep()) kernels.push_back(v);

  matmul::Results results{device, matmul::git_commit(), matmul::utc_now(), {}, {}};
  std::printf("%-21s %s\n", "configuration", matmul::table_header().c_str());
  for (const matmul::Version& kernel : kernels) {
    if (!kernel.runs(o.dtype)) continue;
    for (const int swizzle : {1, 2, 4, 8})
      for (const Raster raster : {raster_along_m, raster_along_n}) {
        sweep_order = {swizzle, raster};
        matmul::Version v = kernel;
        for (const matmul::Param& p : order_params(sweep_order)) v.config.push_back(p);
        results.runs.push_back(matmul::benchmark(v, o.dtype, o.shape, o.timing, o.check, o.sustain_s));
        std::printf("%-21s %s\n", configuration(v).c_str(), matmul::table_row(results.runs.back()).c_str());
        std::fflush(stdout);
      }
  }
  if (!o.json.empty()) matmul::write_results(o.json, results);
  for (const matmul::RunRecord& r : results.runs)
    if (!r.pass.value_or(true)) return matmul::exit_failed;
  return matmul::exit_pass;
}

}  // namespace
}  // namespace cutlass_peers

int main(int argc, char** argv) {
  return matmul::run_guarded("cutlass_sweep", [&] { return cutlass_peers::sweep(argc, argv); });
}
