// What the harness knows of a version: its name, its technique in a few words, its entry points
// (one per type; a persistent rung's take a tile queue) and its tuning constants. Each version's kernel.cu defines one of these, and so does each
// peer (peers/).
#pragma once
#include <cuda_runtime.h>

#include <string>
#include <utility>
#include <vector>

#include "common/dtype.h"
#include "common/hopper/tile_queue.h"

namespace matmul {

template <typename T>
using MatmulFn = void (*)(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream);

// A persistent rung's (v5 on) entry point: with `queue`, its CTAs draw their tiles from the caller's
// queue (the faster form); with null, they walk a static stride and the call keeps no state.
template <typename T>
using QueuedMatmulFn = void (*)(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream,
                                hopper::TileQueue* queue);

struct Param {
  std::string name;
  long value;
};

struct Version {
  // A version whose call takes no queue (v0 to v4, the peers, cuBLAS), and a persistent rung.
  Version(std::string name, std::string technique, MatmulFn<__half> fp16, MatmulFn<__nv_bfloat16> bf16,
          std::vector<Param> config)
      : name(std::move(name)), technique(std::move(technique)), fp16(fp16), bf16(bf16), config(std::move(config)) {}
  Version(std::string name, std::string technique, QueuedMatmulFn<__half> fp16, QueuedMatmulFn<__nv_bfloat16> bf16,
          std::vector<Param> config)
      : name(std::move(name)),
        technique(std::move(technique)),
        queued_fp16(fp16),
        queued_bf16(bf16),
        config(std::move(config)) {}

  std::string name;  // "v0_naive": the directory, the binary, the namespace
  std::string technique;  // what this step adds, for tables and plots
  MatmulFn<__half> fp16 = nullptr;  // the entry points of a version without a queue
  MatmulFn<__nv_bfloat16> bf16 = nullptr;
  QueuedMatmulFn<__half> queued_fp16 = nullptr;  // a persistent rung's
  QueuedMatmulFn<__nv_bfloat16> queued_bf16 = nullptr;
  std::vector<Param> config;  // tile sizes, stages...: recorded with every result
  // Someone else's kernel measured beside the ladder (peers/: CUTLASS's), not a rung: results mark
  // its runs, the charts draw it as a reference line and the tables list it apart.
  bool peer = false;

  bool runs(DType t) const { return t == DType::fp16 ? fp16 || queued_fp16 : bf16 || queued_bf16; }

  // Runs C = A·Bᵀ on untyped device buffers holding elements of type t; a persistent rung draws
  // from `queue` (null: its static stride), any other version ignores it.
  void run(DType t, const void* a, const void* b, void* c, int m, int n, int k, cudaStream_t stream,
           hopper::TileQueue* queue = nullptr) const {
    if (t == DType::fp16)
      run_typed(fp16, queued_fp16, a, b, c, m, n, k, stream, queue);
    else
      run_typed(bf16, queued_bf16, a, b, c, m, n, k, stream, queue);
  }

 private:
  template <typename T>
  static void run_typed(MatmulFn<T> stateless, QueuedMatmulFn<T> queued, const void* a, const void* b, void* c, int m,
                        int n, int k, cudaStream_t stream, hopper::TileQueue* queue) {
    const T* a_t = static_cast<const T*>(a);
    const T* b_t = static_cast<const T*>(b);
    if (queued != nullptr)
      queued(a_t, b_t, static_cast<T*>(c), m, n, k, stream, queue);
    else
      stateless(a_t, b_t, static_cast<T*>(c), m, n, k, stream);
  }
};

}  // namespace matmul
