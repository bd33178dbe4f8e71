// The CUTLASS peers: NVIDIA's own Hopper GEMM kernels, as CUTLASS ships them, behind the Version
// interface, so that the ladder, the binaries and the GPU tests run them beside the versions and
// the charts draw them as reference lines. Their API is a version's (see any vN/matmul.h), with one
// more refusal: a valid shape whose N is not a multiple of 8 throws matmul::NotImplemented, since
// CUTLASS's TMA store writes the rows of C in 16-byte units. No CUTLASS header here: gemm.cuh.
#pragma once
#include "common/version.h"

namespace cutlass_peers {

extern const matmul::Version cooperative;  // cutlass_cooperative: CUTLASS's sm90 ..._warpspecialized_cooperative
extern const matmul::Version pingpong;  // cutlass_pingpong: CUTLASS's sm90 ..._warpspecialized_pingpong

}  // namespace cutlass_peers
