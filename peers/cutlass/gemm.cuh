// CUTLASS's sm90 GEMM on this project's problem, built the way CUTLASS's own examples build it
// (collective builders, GemmUniversal, GemmUniversalAdapter), so the kernel is CUTLASS's as shipped:
// sm90_gemm_tma_warpspecialized_cooperative or _pingpong, persistent, TMA in and out.
//
// Our problem is CUTLASS's "TN" GEMM: A m×k row-major is K-major; B n×k row-major is CUTLASS's k×n
// column-major, K-major too; D = C of ours, m×n row-major, with no source term (CUTLASS's C is void,
// beta 0). fp32 accumulation, fp16 or bf16 in and out.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cutlass/cutlass.h>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/version.h>
#include <cute/tensor.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/util/packed_stride.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/check.h"
#include "common/problem.h"
#include "common/version.h"
#include "peers/cutlass/tile_order.h"

namespace cutlass_peers {

using cutlass::gemm::kernel::detail::RasterOrderOptions;
static_assert(int(RasterOrderOptions::Heuristic) == raster_heuristic &&
                  int(RasterOrderOptions::AlongM) == raster_along_m &&
                  int(RasterOrderOptions::AlongN) == raster_along_n,
              "tile_order.h's Raster follows CUTLASS's RasterOrderOptions value for value");

enum class Schedule { cooperative, pingpong };

// The compile-time half of a configuration (the tile order is the runtime half): the consumers'
// schedule, the CTA tile and the cluster.
template <Schedule S, int TILE_M, int TILE_N, int TILE_K, int CLUSTER_M, int CLUSTER_N>
struct Config {
  static constexpr Schedule schedule = S;
  using Tile = cute::Shape<cute::Int<TILE_M>, cute::Int<TILE_N>, cute::Int<TILE_K>>;
  using Cluster = cute::Shape<cute::Int<CLUSTER_M>, cute::Int<CLUSTER_N>, cute::_1>;
  // Cooperative: both consumer warpgroups share one tile (and its epilogue); ping-pong: each
  // takes its own tile, one computing while the other stores.
  using Mainloop = std::conditional_t<S == Schedule::cooperative, cutlass::gemm::KernelTmaWarpSpecializedCooperative,
                                      cutlass::gemm::KernelTmaWarpSpecializedPingpong>;
  using Epilogue = std::conditional_t<S == Schedule::cooperative, cutlass::epilogue::TmaWarpSpecializedCooperative,
                                      cutlass::epilogue::TmaWarpSpecialized>;

  // What a Version records with every result, with its tile order's (order_params).
  static std::vector<matmul::Param> params() {
    return {
        {"TILE_M", TILE_M}, {"TILE_N", TILE_N}, {"TILE_K", TILE_K}, {"CLUSTER_M", CLUSTER_M}, {"CLUSTER_N", CLUSTER_N}};
  }
};

template <typename T>
struct Element;  // our element type, CUTLASS's of the same bits
template <>
struct Element<__half> {
  using type = cutlass::half_t;
};
template <>
struct Element<__nv_bfloat16> {
  using type = cutlass::bfloat16_t;
};

template <typename T, class C>
struct Kernel {
  using E = typename Element<T>::type;
  static constexpr int alignment = 16 / sizeof(E);  // elements: TMA moves rows in 16-byte units
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, typename C::Tile, typename C::Cluster,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, void, cutlass::layout::RowMajor, alignment, E,
      cutlass::layout::RowMajor, alignment, typename C::Epilogue>::CollectiveOp;
  // As many stages as fit beside the epilogue's shared memory.
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, E, cutlass::layout::RowMajor, alignment, E,
      cutlass::layout::ColumnMajor, alignment, float, typename C::Tile, typename C::Cluster,
      cutlass::gemm::collective::StageCountAutoCarveout<int(sizeof(typename Epilogue::SharedStorage))>,
      typename C::Mainloop>::CollectiveOp;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<
      cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue>>;
};

inline std::string shape_text(int m, int n, int k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

// A failed CUTLASS call: its status, and the CUDA error behind it (a failed launch sets one).
inline void check(cutlass::Status status, const char* call) {
  if (status == cutlass::Status::kSuccess) return;
  const std::string what = std::string(cutlass::cutlassGetStatusString(status)) +
                           " (last CUDA error: " + cudaGetErrorString(cudaGetLastError()) + ")";
  matmul::throw_cuda_error(call, what.c_str(), __FILE__, __LINE__);
}

// C = A·Bᵀ with configuration C and the given tile order, enqueued on `stream`. Refuses an invalid
// problem as every version does (std::invalid_argument), then a valid one CUTLASS cannot run
// (matmul::NotImplemented), both before anything is launched.
template <typename T, class C>
void run(const T* a, const T* b, T* c, int m, int n, int k, TileOrder order, cudaStream_t stream) {
  matmul::validate_shape({m, n, k});
  matmul::validate_operands(a, b, c);
  using K = Kernel<T, C>;
  using Gemm = typename K::Gemm;
  if (n % K::alignment != 0)
    throw matmul::NotImplemented("CUTLASS's TMA kernels cannot run " + shape_text(m, n, k) +
                                 ": N = " + std::to_string(n) + " is not a multiple of " +
                                 std::to_string(K::alignment) + " (the TMA store writes rows of C in 16-byte units)");
  using E = typename K::E;
  typename Gemm::Arguments args{
      cutlass::gemm::GemmUniversalMode::kGemm,
      {m, n, k, 1},
      {reinterpret_cast<const E*>(a), cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideA{}, {m, k, 1}),
       reinterpret_cast<const E*>(b),
       cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideB{}, {n, k, 1})},
      {{1.0f, 0.0f},
       nullptr,
       cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideC{}, {m, n, 1}),
       reinterpret_cast<E*>(c),
       cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideD{}, {m, n, 1})}};
  args.scheduler.max_swizzle_size = order.swizzle;
  args.scheduler.raster_order = RasterOrderOptions(order.raster);
  if (Gemm::can_implement(args) != cutlass::Status::kSuccess)
    throw matmul::NotImplemented("CUTLASS's can_implement refuses " + shape_text(m, n, k));
  // The persistent data-parallel scheduler and a plain epilogue need no workspace, so none is
  // allocated; a configuration that needs one is refused rather than given a cudaMalloc per call.
  if (const size_t bytes = Gemm::get_workspace_size(args); bytes != 0)
    throw std::logic_error("this CUTLASS configuration needs " + std::to_string(bytes) +
                           " bytes of workspace; cutlass_peers::run provides none");
  CUDA_CHECK(cudaGetDevice(&args.hw_info.device_id));
  CUDA_CHECK(cudaDeviceGetAttribute(&args.hw_info.sm_count, cudaDevAttrMultiProcessorCount, args.hw_info.device_id));
  Gemm gemm;
  check(gemm.initialize(args, nullptr, stream), "CUTLASS Gemm::initialize");
  check(gemm.run(stream), "CUTLASS Gemm::run");
}

// Configuration C behind the Version interface, named for its schedule (cutlass_cooperative,
// cutlass_pingpong), with entry points `fp16` and `bf16`; its config is C's, less the tile order.
template <class C>
matmul::Version version(matmul::MatmulFn<__half> fp16, matmul::MatmulFn<__nv_bfloat16> bf16) {
  const bool cooperative = C::schedule == Schedule::cooperative;
  matmul::Version v{std::string("cutlass_") + (cooperative ? "cooperative" : "pingpong"),
                    "CUTLASS " + std::to_string(CUTLASS_MAJOR) + "." + std::to_string(CUTLASS_MINOR) +
                        " sm90 TMA warp-specialized, " + (cooperative ? "cooperative" : "ping-pong") + " consumers",
                    fp16, bf16, C::params()};
  v.peer = true;
  return v;
}

template <typename T, class C, int SWIZZLE, Raster RASTER>
void run_in_order(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream) {
  run<T, C>(a, b, c, m, n, k, {SWIZZLE, RASTER}, stream);
}

// A peer: configuration C in a fixed tile order.
template <class C, int SWIZZLE, Raster RASTER>
matmul::Version peer() {
  matmul::Version v =
      version<C>(run_in_order<__half, C, SWIZZLE, RASTER>, run_in_order<__nv_bfloat16, C, SWIZZLE, RASTER>);
  for (const matmul::Param& p : order_params({SWIZZLE, RASTER})) v.config.push_back(p);
  return v;
}

}  // namespace cutlass_peers
