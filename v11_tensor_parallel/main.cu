// build/bin/v11_tensor_parallel: Llama-3 70B's tensor-parallel layers, the three forms against the
// GEMM alone and the communication alone, one thread per rank.
//
//   v11_tensor_parallel [--devices 0,1] [--dtype fp16|bf16] [--m 2048,8192,32768] [--iters 10]
//                       [--json FILE]
//   v11_tensor_parallel --chunk-cost P [--m ...]   no communication: the chunked forms' GEMMs for
//                                                   P ranks against the GEMM alone, on one GPU
// (common/harness/cli.h parses them.)
// Each rank times its own launches; a row is the median over the iterations of the slowest rank.
#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/check.h"
#include "common/harness/cli.h"
#include "common/harness/device_buffer.h"
#include "common/harness/fill.h"
#include "common/harness/gpu.h"
#include "common/harness/results.h"
#include "common/harness/stats.h"
#include "common/harness/timing.h"
#include "v11_tensor_parallel/nccl_check.h"
#include "v11_tensor_parallel/signals.h"
#include "v11_tensor_parallel/tensor_parallel.h"
#include "v9_stream_k/matmul.h"

namespace tp = v11_tensor_parallel;

namespace {

// Llama-3 70B's layers that tensor parallelism splits, with their full (unsplit) sizes.
struct Layer {
  const char* name;
  bool column;  // column-parallel (N split), else row-parallel (K split)
  int n, k;
};
constexpr Layer layers[] = {
    {"gate_up", true, 57344, 8192},
    {"down", false, 8192, 28672},
    {"o_proj", false, 8192, 8192},
};

// All ranks' threads meet here between timed launches, so that every rank starts together.
class Barrier {
 public:
  explicit Barrier(int count) : count_(count) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const int generation = generation_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++generation_;
      done_.notify_all();
    } else {
      done_.wait(lock, [&] { return generation != generation_; });
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  int count_, arrived_ = 0, generation_ = 0;
};

// The milliseconds of `iters` launches of `op` on `stream`, after two untimed ones; every rank
// starts each launch together (barrier) and times its own. A rank that cannot run `op` (`runs`
// false: no NCCL, or no peer access) still meets the others at every launch, and times nothing.
std::vector<float> time_op(bool runs, const std::function<void(cudaStream_t)>& op, cudaStream_t stream,
                           Barrier& barrier, int iters) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int i = -2; i < iters; ++i) {
    barrier.arrive_and_wait();
    if (!runs) continue;
    CUDA_CHECK(cudaEventRecord(start, stream));
    op(stream);
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    if (i >= 0) ms.push_back(t);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return ms;
}

template <typename T>
void gemm(const void* a, const void* b, void* c, int m, int n, int k, cudaStream_t s) {
  v9_stream_k::matmul(static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(c), m, n, k, s, nullptr);
}

// One rank's buffers for one layer and M, filled with random values.
struct RankData {
  matmul::DeviceBuffer x, w, y, product;
};

struct Row {
  std::string layer, what;
  int m, n, k, ranks;
  double ms, tflops, comm_gb;  // comm_gb: bytes each rank receives, for the communication rows
};

template <typename T>
void measure(const matmul::TensorParallelOptions& args, std::vector<Row>& rows) {
  const int P = int(args.devices.size());
  size_t buffer = 0;
  for (const Layer& l : layers)
    for (const int m : args.ms)
      for (tp::Form f : {tp::Form::sequential, tp::Form::chunked, tp::Form::storer})
        buffer = std::max(buffer, l.column ? tp::column_buffer_bytes(P, m, l.k) : tp::row_buffer_bytes(P, f, m, l.n));
  tp::Group group(args.devices, buffer);
  Barrier barrier(P);
  // A stream a rank for the whole run, made once: new streams would take new hardware queues.
  std::vector<cudaStream_t> streams(P);
  for (int r = 0; r < P; ++r) {
    CUDA_CHECK(cudaSetDevice(group.rank(r).device()));
    CUDA_CHECK(cudaStreamCreateWithFlags(&streams[r], cudaStreamNonBlocking));
  }
  constexpr auto type = matmul::dtype_of<T> == matmul::DType::fp16 ? ncclHalf : ncclBfloat16;
  for (const Layer& l : layers) {
    const int n = l.column ? l.n / P : l.n, k = l.column ? l.k : l.k / P;  // this rank's shard
    for (const int m : args.ms) {
      const int part = m / P;
      std::vector<std::vector<float>> times(P * 5);  // per rank: 3 forms, GEMM alone, communication alone
      std::vector<std::thread> threads;
      for (int r = 0; r < P; ++r)
        threads.emplace_back([&, r] {
          try {
            tp::Rank& rank = group.rank(r);
            CUDA_CHECK(cudaSetDevice(rank.device()));
            cudaStream_t stream = streams[r];
            // Column: x is in the rank's buffer, which the rank fills with its own rows only (the
            // others belong to the ring). Row: x, and the full partial product for (a) and NCCL alone.
            const size_t ws = size_t(n) * k, ys = size_t(l.column ? m : part) * n;
            RankData d{matmul::DeviceBuffer(l.column ? 16 : size_t(m) * k * 2), matmul::DeviceBuffer(ws * 2),
                       matmul::DeviceBuffer(ys * 2), matmul::DeviceBuffer(l.column ? 16 : size_t(m) * n * 2)};
            const float scale = matmul::input_scale(l.k);
            if (l.column)
              matmul::fill_uniform(static_cast<T*>(rank.buffer()) + size_t(r) * part * k, size_t(part) * k,
                                   matmul::dtype_of<T>, scale, 1 + r, stream);
            else
              matmul::fill_uniform(d.x.get(), size_t(m) * k, matmul::dtype_of<T>, scale, 1 + r, stream);
            matmul::fill_uniform(d.w.get(), ws, matmul::dtype_of<T>, scale, 100 + r, stream);
            const T* w = static_cast<const T*>(d.w.get());
            T* y = static_cast<T*>(d.y.get());
            int slot = 0;
            for (tp::Form f : {tp::Form::sequential, tp::Form::chunked, tp::Form::storer})
              times[r * 5 + slot++] = time_op(
                  f == tp::Form::storer ? rank.has_peer_access() : rank.has_nccl(),
                  [&](cudaStream_t s) {
                    if (l.column)
                      tp::column_parallel(rank, f, w, y, m, n, k, s);
                    else
                      tp::row_parallel(rank, f, static_cast<const T*>(d.x.get()), w, y, m, n, k, s);
                  },
                  stream, barrier, args.iters);
            // The GEMM alone: this rank's shard of the layer, all m rows.
            times[r * 5 + 3] = time_op(
                true,
                [&](cudaStream_t s) {
                  gemm<T>(l.column ? rank.buffer() : d.x.get(), w, l.column ? y : d.product.get(), m, n, k, s);
                },
                stream, barrier, args.iters);
            // The communication alone: NCCL's all-gather (column) or reduce-scatter (row).
            times[r * 5 + 4] = time_op(
                rank.has_nccl(),
                [&](cudaStream_t s) {
                  if (l.column)
                    NCCL_CHECK(ncclAllGather(static_cast<T*>(rank.buffer()) + size_t(r) * part * k, rank.buffer(),
                                             size_t(part) * k, type, rank.comm(), s));
                  else
                    NCCL_CHECK(ncclReduceScatter(d.product.get(), y, size_t(part) * n, type, ncclSum, rank.comm(), s));
                },
                stream, barrier, args.iters);
            CUDA_CHECK(cudaStreamSynchronize(stream));
          } catch (const std::exception& e) {
            std::fprintf(stderr, "v11_tensor_parallel: rank %d: %s\n", r, e.what());
            std::abort();  // the other ranks wait at the barrier for this one: end the process
          }
        });
      for (auto& t : threads) t.join();
      const char* names[] = {"sequential", "chunked", "storer", "gemm alone", "communication alone"};
      const double flops = 2.0 * m * double(n) * k;
      const double comm_gb = (P - 1) * double(part) * (l.column ? k : n) * 2 / 1e9;
      double median[5] = {0, 0, 0, 0, 0};  // 0: not run
      for (int slot = 0; slot < 5; ++slot) {
        if (times[slot].empty()) continue;
        std::vector<float> slowest(args.iters, 0.f);  // per iteration, the slowest rank
        for (int r = 0; r < P; ++r)
          for (int i = 0; i < args.iters; ++i) slowest[i] = std::max(slowest[i], times[r * 5 + slot][i]);
        const double ms = median[slot] = matmul::summarize(slowest).median;
        rows.push_back({l.name, names[slot], m, n, k, P, ms, slot < 4 ? flops / ms / 1e9 : 0, slot == 4 ? comm_gb : 0});
        const Row& row = rows.back();
        std::printf("%-8s %-6s M %6d  N %6d  K %6d  %-20s %9.3f ms", row.layer.c_str(), l.column ? "column" : "row", m,
                    n, k, names[slot], ms);
        if (slot < 4) std::printf("  %7.1f TFLOPS", row.tflops);
        if (slot == 4) std::printf("  %6.1f GB/s received by each rank", comm_gb / ms * 1e3);
        std::printf("\n");
        std::fflush(stdout);
      }
      // The share of the communication an overlapped form hides: GEMM + communication is the
      // sequential ideal, the GEMM alone a perfect overlap (the target: 90% hidden).
      const double gemm_ms = median[3], comm_ms = median[4];
      for (int slot = 1; slot <= 2 && gemm_ms > 0 && comm_ms > 0; ++slot)
        if (median[slot] > 0)
          std::printf("%-8s M %6d  %s hides %5.1f%% of the communication\n", l.name, m, names[slot],
                      100.0 * (gemm_ms + comm_ms - median[slot]) / comm_ms);
    }
  }
  for (int r = 0; r < P; ++r) {
    CUDA_CHECK(cudaSetDevice(group.rank(r).device()));
    CUDA_CHECK(cudaStreamDestroy(streams[r]));
  }
}

// --chunk-cost P: on one GPU, no communication. The chunked forms' launches for P ranks (column: P
// GEMMs of M/P rows; row: P GEMMs of M/P rows and P − 1 sums) against one GEMM of the rank's shard.
template <typename T>
void chunk_cost(const matmul::TensorParallelOptions& args, std::vector<Row>& rows) {
  const int P = args.chunk_cost;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const Layer& l : layers) {
    const int n = l.column ? l.n / P : l.n, k = l.column ? l.k : l.k / P;
    for (const int m : args.ms) {
      const int part = m / P;
      matmul::DeviceBuffer x(size_t(m) * k * 2), w(size_t(n) * k * 2), y(size_t(m) * n * 2), sum(size_t(part) * n * 2);
      matmul::fill_uniform(x.get(), size_t(m) * k, matmul::dtype_of<T>, matmul::input_scale(l.k), 1, stream);
      matmul::fill_uniform(w.get(), size_t(n) * k, matmul::dtype_of<T>, matmul::input_scale(l.k), 2, stream);
      const auto one = [&](cudaStream_t s) { gemm<T>(x.get(), w.get(), y.get(), m, n, k, s); };
      const auto chunks = [&](cudaStream_t s) {
        for (int b = 0; b < P; ++b) {
          T* out = static_cast<T*>(y.get()) + size_t(b) * part * n;
          gemm<T>(static_cast<const T*>(x.get()) + size_t(b) * part * k, w.get(), out, part, n, k, s);
          if (!l.column && b > 0) tp::add(static_cast<T*>(sum.get()), out, out - size_t(part) * n, size_t(part) * n, s);
        }
      };
      // Interleaved, launch by launch, so that clock changes hit both alike (common/harness/timing.h).
      matmul::warm_up({one, chunks}, 10, stream);
      const matmul::Samples ms = matmul::time_rounds({one, chunks}, args.iters, stream);
      const double ta = matmul::summarize(ms[0]).median, tb = matmul::summarize(ms[1]).median;
      const double flops = 2.0 * m * double(n) * k;
      rows.push_back({l.name, "gemm alone", m, n, k, P, ta, flops / ta / 1e9, 0});
      rows.push_back({l.name, "chunked gemms", m, n, k, P, tb, flops / tb / 1e9, 0});
      std::printf("%-8s M %6d  N %6d  K %6d  P %d  gemm alone %8.3f ms  chunked %8.3f ms  cost %+5.1f%%\n", l.name, m,
                  n, k, P, ta, tb, 100.0 * (tb / ta - 1));
      std::fflush(stdout);
    }
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

void write_json(const matmul::TensorParallelOptions& args, const std::vector<Row>& rows) {
  nlohmann::json j;
  const matmul::DeviceInfo d = matmul::query_device();
  j["gpu"] = d.name;
  j["date"] = matmul::utc_now();
  j["git"] = matmul::git_commit();
  j["dtype"] = matmul::dtype_name(args.dtype);
  j["devices"] = args.devices;
  for (const Row& r : rows)
    j["rows"].push_back({{"layer", r.layer},
                         {"what", r.what},
                         {"m", r.m},
                         {"n", r.n},
                         {"k", r.k},
                         {"ranks", r.ranks},
                         {"ms", r.ms},
                         {"tflops", r.tflops},
                         {"comm_gb", r.comm_gb}});
  matmul::write_file(args.json, j.dump(1) + "\n");
}

}  // namespace

int main(int argc, char** argv) {
  // Before any CUDA call: no NVLink multicast (nothing here needs it, and the machines this course
  // runs on forbid it), hardware queues enough for two streams a rank when ranks share a GPU, and
  // every kernel loaded at start.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 1);
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);  // tensor_parallel.h: no kernel loads behind a waiting one
  const std::string program = "v11_tensor_parallel";
  matmul::TensorParallelOptions args;
  try {
    args = matmul::parse_tensor_parallel_options(std::vector<std::string>(argv + 1, argv + argc));
    const int ranks = args.chunk_cost ? args.chunk_cost : int(args.devices.size());
    for (const Layer& l : layers)
      if ((l.column ? l.n : l.k) % ranks != 0)
        throw std::invalid_argument(std::string(l.name) + " cannot be split over " + std::to_string(ranks) + " ranks");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n%s", program.c_str(), e.what(), matmul::tensor_parallel_usage(program).c_str());
    return matmul::exit_bad_arguments;
  }
  if (args.help) {
    std::printf("%s", matmul::tensor_parallel_usage(program).c_str());
    return matmul::exit_pass;
  }
  try {
    matmul::require_hopper(matmul::query_device());
    std::vector<Row> rows;
    const bool fp16 = args.dtype == matmul::DType::fp16;
    if (args.chunk_cost)
      fp16 ? chunk_cost<__half>(args, rows) : chunk_cost<__nv_bfloat16>(args, rows);
    else
      fp16 ? measure<__half>(args, rows) : measure<__nv_bfloat16>(args, rows);
    if (!args.json.empty()) write_json(args, rows);
  } catch (const matmul::NoUsableGpu& e) {
    std::fprintf(stderr, "v11_tensor_parallel: %s\n", e.what());
    return matmul::exit_no_gpu;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "v11_tensor_parallel: %s\n", e.what());
    return matmul::exit_failed;
  }
  return matmul::exit_pass;
}
