// Every kernel the bench tools can run, in ladder order: the registered versions (each followed by
// its alternative form), the peers, cuBLAS last.
#pragma once
#include <vector>

#include "common/harness/cublas.h"
#include "matmul_versions.h"

namespace matmul {

inline std::vector<const Version*> all_kernels() {
  std::vector<const Version*> all = registered_versions();
  for (const Version* peer : registered_peers()) all.push_back(peer);
  all.push_back(&cublas_version());
  return all;
}

}  // namespace matmul
