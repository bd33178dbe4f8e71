// Every kernel the bench tools and the GPU tests can run, in ladder order: the registered versions
// (each followed by its alternative form), the peers, cuBLAS last.
#pragma once
#include <string>
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

// Their names, the ones --versions accepts.
inline std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const Version* v : all_kernels()) names.push_back(v->name);
  return names;
}

}  // namespace matmul
