// The two layers in their three forms. Every GEMM is v9's (its chooser picks the tiling for the
// chunk's shape), called without a TileQueue: stream-K splits its last wave over every SM, and
// beside a communication kernel that holds SMs while it waits for a peer, its finishers would hold
// SMs waiting while the rest of the grid waits for SMs (docs/v11_tensor_parallel.md).
#include <stdexcept>
#include <string>

#include "common/check.h"
#include "common/dtype.h"
#include "common/problem.h"
#include "v11_tensor_parallel/nccl_check.h"
#include "v11_tensor_parallel/signals.h"
#include "v11_tensor_parallel/tensor_parallel.h"
#include "v9_stream_k/matmul.h"

namespace v11_tensor_parallel {

int column_block_sent(int rank, int step, int ranks) { return ((rank - step + 1) % ranks + ranks) % ranks; }
int column_block_received(int rank, int step, int ranks) { return ((rank - step) % ranks + ranks) % ranks; }
int row_block(int rank, int step, int ranks) { return ((rank - step) % ranks + ranks) % ranks; }

namespace {

template <typename T>
constexpr ncclDataType_t nccl_type = matmul::dtype_of<T> == matmul::DType::fp16 ? ncclHalf : ncclBfloat16;

template <typename T>
void gemm(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream) {
  v9_stream_k::matmul(a, b, c, m, n, k, stream, nullptr);
}

// A row-parallel slot, (m/P) × n elements, starts on a 256-byte boundary (TMA wants 16).
std::size_t slot_elements(int rows, int n) { return (std::size_t(rows) * n + 127) / 128 * 128; }

}  // namespace

// The communication of one call. The chunked form's runs on the rank's side stream, forked from
// and joined back into the caller's; the storer form's writes go straight into the neighbour's
// buffer, and semaphores (signals.h) say when data has arrived. In the ring every rank sends to
// the next (index + 1) and receives from the previous.
//
// Room: in a group whose ranks can write each other's memory, every call of every form starts by
// waiting until the next rank has made room (it has finished with its buffer: its last call has
// ended) and ends by making room for the previous one. So a storer call never writes into a buffer
// that the neighbour's previous call, in any form, still reads; and each call takes one and gives one.
class Ring {
 public:
  Ring(Rank& rank, Form form, cudaStream_t stream)
      : rank_(rank), nccl_(form != Form::storer), rooms_(rank.ranks_ > 1 && rank.peer_access_), stream_(stream) {
    if (rooms_) wait(&rank_.semaphores_[rank_.index_][1], stream_);
    CUDA_CHECK(cudaEventRecord(rank_.events_[0], stream_));
    CUDA_CHECK(cudaStreamWaitEvent(rank_.side_, rank_.events_[0]));
  }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  int next() const { return (rank_.index_ + 1) % rank_.ranks_; }
  int previous() const { return (rank_.index_ + rank_.ranks_ - 1) % rank_.ranks_; }

  // The address in the next rank's buffer at the offset `mine` has in this rank's.
  template <typename T>
  T* in_next(T* mine) const {
    const auto offset = reinterpret_cast<char*>(mine) - static_cast<char*>(rank_.buffers_[rank_.index_]);
    return reinterpret_cast<T*>(static_cast<char*>(rank_.buffers_[next()]) + offset);
  }

  // Storer form: what `on` wrote into the next rank's buffer has all landed; tell it.
  void announce(cudaStream_t on) const { signal(&rank_.semaphores_[next()][0], on); }
  // Storer form: `on` waits until the previous rank has announced one more arrival.
  void await_data(cudaStream_t on) const { wait(&rank_.semaphores_[rank_.index_][0], on); }

  // The side stream waits for what the caller's stream has launched so far (data to send).
  void follow() {
    cudaEvent_t e = rank_.events_[2 + 2 * step_];
    CUDA_CHECK(cudaEventRecord(e, stream_));
    CUDA_CHECK(cudaStreamWaitEvent(rank_.side_, e));
  }

  // One step, on the side stream: `bytes` at `send` go to the next rank, where they land at the
  // offset `landing` has here; the previous rank's land at `receive`. arrived() then orders the
  // caller's stream after them.
  void exchange(const void* send, void* receive, void* landing, std::size_t bytes, ncclDataType_t type,
                std::size_t count) {
    cudaStream_t side = rank_.side_;
    if (nccl_) {
      NCCL_CHECK(ncclGroupStart());
      NCCL_CHECK(ncclSend(send, count, type, next(), rank_.comm_, side));
      NCCL_CHECK(ncclRecv(receive, count, type, previous(), rank_.comm_, side));
      NCCL_CHECK(ncclGroupEnd());
    } else {  // the copy engine writes the neighbour's buffer; no SM is needed for the bytes
      CUDA_CHECK(cudaMemcpyAsync(in_next(landing), send, bytes, cudaMemcpyDeviceToDevice, side));
      announce(side);
      await_data(side);
    }
    CUDA_CHECK(cudaEventRecord(rank_.events_[3 + 2 * step_], side));
    ++step_;
  }

  // The caller's stream waits for step `s` (1 … P − 1) to have arrived.
  void arrived(int s) const { CUDA_CHECK(cudaStreamWaitEvent(stream_, rank_.events_[3 + 2 * (s - 1)])); }

  // Joins the side stream back; once the caller's stream has read all it received, makes room
  // for the previous rank's next call.
  void close() {
    cudaEvent_t join = rank_.events_[1];
    CUDA_CHECK(cudaEventRecord(join, rank_.side_));
    CUDA_CHECK(cudaStreamWaitEvent(stream_, join));
    if (rooms_) signal(&rank_.semaphores_[previous()][1], stream_);
  }

 private:
  Rank& rank_;
  bool nccl_, rooms_;
  cudaStream_t stream_;
  int step_ = 0;  // exchanges so far
};

namespace {

// A stream of the caller's own, made non-blocking. While it is being captured its flags cannot be
// asked for (CUDA refuses, and the capture is lost), and do not matter: the graph's launch stream does.
bool non_blocking(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return false;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone) return true;
  unsigned flags = 0;
  CUDA_CHECK(cudaStreamGetFlags(stream, &flags));
  return flags & cudaStreamNonBlocking;
}

// What every call checks before it launches anything.
void validate(const Rank& rank, Form form, const matmul::Shape& s, std::size_t buffer_needed, cudaStream_t stream) {
  const std::string where = "v11_tensor_parallel rank " + std::to_string(rank.index()) + ": ";
  matmul::validate_shape(s);
  if (s.m % rank.ranks() != 0)
    throw std::invalid_argument(where + "M = " + std::to_string(s.m) + " is not a multiple of the " +
                                std::to_string(rank.ranks()) + " ranks: each rank holds M/P rows");
  int device = -1;
  CUDA_CHECK(cudaGetDevice(&device));
  if (device != rank.device())
    throw std::invalid_argument(where + "called with device " + std::to_string(device) +
                                " current, but the rank is on device " + std::to_string(rank.device()) +
                                ": make the rank's device current first");
  if (form != Form::storer && !rank.has_nccl())
    throw std::invalid_argument(where + "the " + form_name(form) +
                                " form needs NCCL, and a loopback group has none: only the storer form runs there");
  if (rank.loopback() && !non_blocking(stream))
    throw std::invalid_argument(where +
                                "the loopback group's ranks share one GPU, and each waits for the others on its "
                                "stream: give each rank a non-blocking stream of its own (cudaStreamNonBlocking), "
                                "which work on the legacy default stream cannot hold up");
  if (form == Form::storer && !rank.has_peer_access())
    throw std::invalid_argument(where +
                                "the storer form writes into the neighbours' memory, and this GPU has no peer "
                                "access to theirs");
  if (buffer_needed > rank.buffer_bytes())
    throw std::invalid_argument(where + "the layer needs " + std::to_string(buffer_needed) +
                                " bytes of symmetric buffer, the group has " + std::to_string(rank.buffer_bytes()));
}

template <typename T>
void column(Rank& rank, Form form, const T* w, T* y, int m, int n, int k, cudaStream_t stream) {
  validate(rank, form, {m, n, k}, column_buffer_bytes(rank.ranks(), m, k), stream);
  matmul::validate_operands(rank.buffer(), w, y);
  const int P = rank.ranks(), r = rank.index(), rows = m / P;
  if (form != Form::sequential && std::size_t(rows) * n % 8 != 0)
    throw std::invalid_argument("v11_tensor_parallel rank " + std::to_string(r) +
                                ": a block of y, M/P × N = " + std::to_string(rows) + " × " + std::to_string(n) +
                                " elements, must be a multiple of 8 (16 bytes): each block is a GEMM's C, and TMA "
                                "needs it 16-byte aligned");
  T* x = static_cast<T*>(rank.buffer());
  const auto block = [&](int b) { return x + std::size_t(b) * rows * k; };
  const auto out = [&](int b) { return y + std::size_t(b) * rows * n; };
  Ring ring(rank, form, stream);
  if (form == Form::sequential) {  // (a) gather all of x, in place, then one GEMM
    NCCL_CHECK(ncclAllGather(block(r), x, std::size_t(rows) * k, nccl_type<T>, rank.comm(), stream));
    gemm<T>(x, w, y, m, n, k, stream);
    return ring.close();
  }
  // (b), (c): this rank's rows first, while the ring brings the others, one block a step.
  gemm<T>(block(r), w, out(r), rows, n, k, stream);
  for (int s = 1; s < P; ++s) {
    T* sent = block(column_block_sent(r, s, P));
    T* received = block(column_block_received(r, s, P));
    ring.exchange(sent, received, sent, std::size_t(rows) * k * sizeof(T), nccl_type<T>, std::size_t(rows) * k);
    ring.arrived(s);
    gemm<T>(received, w, out(column_block_received(r, s, P)), rows, n, k, stream);
  }
  ring.close();
}

template <typename T>
void row(Rank& rank, Form form, const T* x, const T* w, T* y, int m, int n, int k, cudaStream_t stream) {
  validate(rank, form, {m, n, k}, row_buffer_bytes(rank.ranks(), form, m, n), stream);
  matmul::validate_operands(x, w, y);
  const int P = rank.ranks(), r = rank.index(), rows = m / P;
  T* buffer = static_cast<T*>(rank.buffer());
  Ring ring(rank, form, stream);
  if (form == Form::sequential) {  // (a) the whole partial product, then NCCL's reduce-scatter
    gemm<T>(x, w, buffer, m, n, k, stream);
    NCCL_CHECK(ncclReduceScatter(buffer, y, std::size_t(rows) * n, nccl_type<T>, ncclSum, rank.comm(), stream));
    return ring.close();
  }
  // (b), (c): the ring. Slot s − 1 receives step s's sum from the previous rank, slot P − 1 holds
  // this rank's own partial product, and (chunked) slot P − 1 + s the sum this rank sends at step s.
  const std::size_t slot = slot_elements(rows, n);
  const auto received = [&](int s) { return buffer + (s - 1) * slot; };
  T* product = buffer + (P - 1) * slot;
  const auto sent = [&](int s) { return buffer + (P - 1 + s) * slot; };
  const std::size_t count = std::size_t(rows) * n;
  for (int s = 1; s <= P; ++s) {
    const T* x_block = x + std::size_t(row_block(r, s, P)) * rows * k;
    // Where this step's sum goes: at the last step y; before, the storer writes it straight into
    // the next rank's slot, the chunked form into its own slot for NCCL to send.
    T* target = s == P ? y : form == Form::storer ? ring.in_next(received(s)) : sent(s);
    if (s == 1) {
      gemm<T>(x_block, w, target, rows, n, k, stream);  // the storer's TMA stores cross NVLink here
    } else {
      gemm<T>(x_block, w, product, rows, n, k, stream);
      if (form == Form::storer)
        ring.await_data(stream);
      else
        ring.arrived(s - 1);
      add<T>(target, product, received(s - 1), count, stream);
    }
    if (s == P) break;
    if (form == Form::storer) {
      ring.announce(stream);
    } else {
      ring.follow();
      ring.exchange(sent(s), received(s), received(s), count * sizeof(T), nccl_type<T>, count);
    }
  }
  ring.close();
}

}  // namespace

std::size_t column_buffer_bytes(int, int m, int k) { return std::size_t(m) * k * matmul::dtype_bytes; }

std::size_t row_buffer_bytes(int ranks, Form form, int m, int n) {
  const int rows = m / ranks;
  if (form == Form::sequential) return std::size_t(m) * n * matmul::dtype_bytes;
  const int slots = form == Form::chunked ? 2 * ranks - 1 : ranks;
  return slots * slot_elements(rows, n) * matmul::dtype_bytes;
}

void column_parallel(Rank& rank, Form form, const __half* w, __half* y, int m, int n, int k, cudaStream_t stream) {
  column(rank, form, w, y, m, n, k, stream);
}
void column_parallel(Rank& rank, Form form, const __nv_bfloat16* w, __nv_bfloat16* y, int m, int n, int k,
                     cudaStream_t stream) {
  column(rank, form, w, y, m, n, k, stream);
}
void row_parallel(Rank& rank, Form form, const __half* x, const __half* w, __half* y, int m, int n, int k,
                  cudaStream_t stream) {
  row(rank, form, x, w, y, m, n, k, stream);
}
void row_parallel(Rank& rank, Form form, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int m, int n,
                  int k, cudaStream_t stream) {
  row(rank, form, x, w, y, m, n, k, stream);
}

}  // namespace v11_tensor_parallel
