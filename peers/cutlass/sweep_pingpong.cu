// The sweep's ping-pong configurations: tiles of 128×128 and 64×256, clusters of 1×1, 2×1 and 1×2;
// bf16 for those that led in fp16 on the H200 (issue 17).
#include "peers/cutlass/sweep_kernel.cuh"

namespace cutlass_peers {

std::vector<matmul::Version> pingpong_sweep() {
  constexpr Schedule S = Schedule::pingpong;
  return {
      swept<Config<S, 128, 128, 64, 1, 1>, false>(), swept<Config<S, 128, 128, 64, 2, 1>, true>(),
      swept<Config<S, 128, 128, 64, 1, 2>, true>(),  swept<Config<S, 64, 256, 64, 2, 1>, false>(),
      swept<Config<S, 64, 256, 64, 1, 2>, false>(),
  };
}

}  // namespace cutlass_peers
