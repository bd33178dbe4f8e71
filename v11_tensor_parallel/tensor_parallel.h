// v11_tensor_parallel: one linear layer y = x·Wᵀ split over P GPUs (tensor parallelism), its
// communication overlapped with v9's GEMM. The contract is in docs/v11_tensor_parallel.md.
//
// A Group is made once, from one thread, for P ranks: one per device listed. Each rank is then
// driven by a thread of its own, which makes its device current and calls the layers below with
// that rank, all on one stream (or on streams ordered one after the other): a rank's semaphores
// have one waiter. Every rank of the group must make the same calls, with the same sizes, in the
// same order, as with any collective. Forms may be mixed from call to call. A call that throws does
// so before it launches anything, except for a CUDA or NCCL failure, after which the group is
// unusable (its ranks may wait for each other forever).
//
// Kernels must be loaded before a rank waits: with lazy loading (CUDA's default), loading a kernel
// at its first launch may synchronize the device, behind a wait kernel that is waiting for that
// very launch. The group loads its own kernels; v9's GEMM kernels load at their first launch, so a
// program sets CUDA_MODULE_LOADING=EAGER before CUDA starts (the tests and the binary do).
//
// Listing one device P times is the loopback group: P ranks on one GPU, each with its own buffers.
// It has no NCCL (NCCL refuses two ranks on one device), so only the storer form runs there; it
// exists to test the chunks, the rings and the semaphores on a machine with one GPU. Each rank
// needs a non-blocking stream of its own (work on the legacy stream would wait for a rank's wait
// kernel; a graph captured from it is launched on one too), and the process enough hardware queues
// for two streams a rank (CUDA_DEVICE_MAX_CONNECTIONS, 8 by default): a semaphore's wait holds up
// its queue.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace v11_tensor_parallel {

// How a layer's communication meets its GEMM.
enum class Form {
  sequential,  // (a) NCCL's collective, then the GEMM (column) or the GEMM, then NCCL (row)
  chunked,  // (b) a ring of P − 1 NCCL send/recv steps on a side stream, a GEMM per chunk beside it
  storer,  // (c) the same ring without NCCL: ranks write into each other's buffers and raise flags
};
const char* form_name(Form f);

// One rank's state, owned by its Group. Everything a call needs is here, nothing is process-wide:
// two groups, or two threads driving two ranks, share nothing.
class Rank {
 public:
  Rank() = default;
  ~Rank();  // frees what the rank owns: its communicator, stream, events, buffer and semaphores
  Rank(const Rank&) = delete;
  Rank& operator=(const Rank&) = delete;

  int index() const { return index_; }
  int ranks() const { return ranks_; }
  int device() const { return device_; }
  ncclComm_t comm() const { return comm_; }  // null in a loopback group
  bool has_nccl() const { return comm_ != nullptr; }
  bool has_peer_access() const { return peer_access_; }  // the same for every rank of a group
  bool loopback() const { return loopback_; }
  // The rank's symmetric buffer: every rank has one of the same size, at an address each peer
  // knows. A column-parallel layer's input x lives at its start (the caller writes its own rows).
  void* buffer() const { return buffers_[index_]; }
  std::size_t buffer_bytes() const { return buffer_bytes_; }

 private:
  friend class Group;
  friend class Ring;  // layers.cu: a call's communication
  int index_ = 0, ranks_ = 1, device_ = 0;
  ncclComm_t comm_ = nullptr;
  bool peer_access_ = false;  // every rank may write every other rank's buffer (the storer form)
  bool loopback_ = false;
  cudaStream_t side_ = nullptr;  // the communication's stream in the chunked forms
  std::vector<cudaEvent_t> events_;  // the fork, the join, and two per ring step
  std::vector<void*> buffers_;  // every rank's symmetric buffer, at addresses valid here; [index_] its own
  std::vector<int*> semaphores_;  // every rank's two counters, data arrived and room made; [index_] its own
  std::size_t buffer_bytes_ = 0;
};

class Group {
 public:
  // One rank per entry of `devices`, each with a symmetric buffer of `buffer_bytes`. Distinct
  // devices get NCCL communicators and peer access between every pair; one device listed every
  // time is the loopback group. Throws std::invalid_argument for anything else.
  Group(const std::vector<int>& devices, std::size_t buffer_bytes);
  ~Group();
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  int ranks() const { return int(ranks_.size()); }
  Rank& rank(int r) { return *ranks_.at(r); }
  bool loopback() const { return loopback_; }

 private:
  std::vector<std::unique_ptr<Rank>> ranks_;
  bool loopback_ = false;
};

// Column-parallel: W (n_total × k) is split by rows, this rank holding w, n × k. The input x,
// m × k, is split by rows too: this rank's m/P rows are rows [index·m/P, (index+1)·m/P) of the m × k
// matrix at the start of rank.buffer(). The layer gathers x there and writes y = x·wᵀ, m × n.
// m must be a multiple of P. Call with the rank's device current; launches on `stream`.
void column_parallel(Rank& rank, Form form, const __half* w, __half* y, int m, int n, int k, cudaStream_t stream);
void column_parallel(Rank& rank, Form form, const __nv_bfloat16* w, __nv_bfloat16* y, int m, int n, int k,
                     cudaStream_t stream);

// Row-parallel: W (n × k_total) is split by columns and x (m × k_total) likewise: this rank holds
// x, m × k, and w, n × k. The layer sums the P partial products x·wᵀ and leaves this rank its m/P
// rows of the sum in y, (m/P) × n (reduce-scatter). m must be a multiple of P.
void row_parallel(Rank& rank, Form form, const __half* x, const __half* w, __half* y, int m, int n, int k,
                  cudaStream_t stream);
void row_parallel(Rank& rank, Form form, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int m, int n,
                  int k, cudaStream_t stream);

// The bytes of symmetric buffer each layer needs, per rank.
std::size_t column_buffer_bytes(int ranks, int m, int k);
std::size_t row_buffer_bytes(int ranks, Form form, int m, int n);

// The ring's arithmetic, the same for every form (host functions, tested without a GPU).
// Column: at step s (1 … P−1) rank r forwards block (r − s + 1) to rank r + 1 and receives block
// (r − s) from rank r − 1, whose GEMM then runs. Row: at step s (1 … P) rank r computes the partial
// product of block (r − s), adds what rank r − 1 sent at step s − 1, and sends the sum on; at step P
// the block is r's own and the sum is final.
int column_block_sent(int rank, int step, int ranks);
int column_block_received(int rank, int step, int ranks);
int row_block(int rank, int step, int ranks);

}  // namespace v11_tensor_parallel
