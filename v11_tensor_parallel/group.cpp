#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/check.h"
#include "v11_tensor_parallel/nccl_check.h"
#include "v11_tensor_parallel/signals.h"
#include "v11_tensor_parallel/tensor_parallel.h"

namespace v11_tensor_parallel {

namespace {

// Makes `device` current until the scope ends, then restores the caller's: the group's
// constructor and destructor leave the calling thread as they found it.
class OnDevice {
 public:
  explicit OnDevice(int device) {
    CUDA_CHECK(cudaGetDevice(&previous_));
    CUDA_CHECK(cudaSetDevice(device));
  }
  ~OnDevice() { cudaSetDevice(previous_); }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace

const char* form_name(Form f) {
  switch (f) {
    case Form::sequential:
      return "sequential";
    case Form::chunked:
      return "chunked";
    case Form::storer:
      return "storer";
  }
  return "?";
}

Group::Group(const std::vector<int>& devices, std::size_t buffer_bytes) {
  const int ranks = int(devices.size());
  if (ranks < 1) throw std::invalid_argument("v11_tensor_parallel: a group needs at least one device");
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  for (int d : devices)
    if (d < 0 || d >= count)
      throw std::invalid_argument("v11_tensor_parallel: device " + std::to_string(d) +
                                  " does not exist (this machine has " + std::to_string(count) + ")");
  std::vector<int> sorted = devices;
  std::sort(sorted.begin(), sorted.end());
  loopback_ = ranks > 1 && sorted.front() == sorted.back();
  if (!loopback_ && std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw std::invalid_argument(
        "v11_tensor_parallel: a device is listed twice: list each GPU once, or one GPU for every "
        "rank (the loopback group)");

  // The ranks first, each owning what is made for it from then on: a throw part-way frees it all.
  for (int r = 0; r < ranks; ++r) {
    ranks_.push_back(std::make_unique<Rank>());
    Rank& rank = *ranks_.back();
    rank.index_ = r;
    rank.ranks_ = ranks;
    rank.device_ = devices[r];
    rank.buffer_bytes_ = buffer_bytes;
    rank.buffers_.assign(ranks, nullptr);
    rank.semaphores_.assign(ranks, nullptr);
    rank.events_.assign(2 + 2 * ranks, nullptr);
  }
  if (!loopback_) {
    std::vector<ncclComm_t> comms(ranks, nullptr);
    NCCL_CHECK(ncclCommInitAll(comms.data(), ranks, devices.data()));
    for (int r = 0; r < ranks; ++r) ranks_[r]->comm_ = comms[r];
  }
  for (auto& rank : ranks_) {
    const int r = rank->index_;
    OnDevice on(rank->device_);
    load_kernels();
    CUDA_CHECK(cudaStreamCreateWithFlags(&rank->side_, cudaStreamNonBlocking));
    for (cudaEvent_t& e : rank->events_) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    CUDA_CHECK(cudaMalloc(&rank->buffers_[r], std::max<std::size_t>(buffer_bytes, 16)));
    // Data arrived: none yet. Room made: the buffer is free for one round of writes.
    const int initial[2] = {0, 1};
    CUDA_CHECK(cudaMalloc(&rank->semaphores_[r], sizeof(initial)));
    CUDA_CHECK(cudaMemcpy(rank->semaphores_[r], initial, sizeof(initial), cudaMemcpyHostToDevice));
  }
  std::vector<void*> buffers(ranks);
  std::vector<int*> semaphores(ranks);
  for (int r = 0; r < ranks; ++r) {
    buffers[r] = ranks_[r]->buffers_[r];
    semaphores[r] = ranks_[r]->semaphores_[r];
  }
  // Peer access, so that a rank's kernels and copies reach its neighbours' buffers over NVLink,
  // for the whole group or not at all (a rank without it could not take part in a storer call).
  // A loopback group's ranks share one GPU: its own memory, no peer access needed.
  bool peer_access = true;
  for (int r = 0; r < ranks && !loopback_; ++r)
    for (int p = 0; p < ranks; ++p) {
      if (p == r) continue;
      int can = 0;
      CUDA_CHECK(cudaDeviceCanAccessPeer(&can, devices[r], devices[p]));
      peer_access = peer_access && can;
    }
  for (int r = 0; r < ranks; ++r) {
    Rank& rank = *ranks_[r];
    rank.buffers_ = buffers;
    rank.semaphores_ = semaphores;
    rank.peer_access_ = peer_access;
    rank.loopback_ = loopback_;
    if (loopback_ || !peer_access) continue;
    OnDevice on(rank.device_);
    for (int p = 0; p < ranks; ++p) {
      if (p == r) continue;
      const cudaError_t e = cudaDeviceEnablePeerAccess(devices[p], 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled)
        cudaGetLastError();  // enabled by an earlier group: the state we want
      else
        CUDA_CHECK(e);
    }
  }
}

Rank::~Rank() {
  int previous = 0;
  cudaGetDevice(&previous);
  cudaSetDevice(device_);  // the group's destructor has waited for every device
  if (comm_) ncclCommDestroy(comm_);
  for (cudaEvent_t e : events_)
    if (e) cudaEventDestroy(e);
  if (side_) cudaStreamDestroy(side_);
  if (!buffers_.empty()) cudaFree(buffers_[index_]);
  if (!semaphores_.empty()) cudaFree(semaphores_[index_]);
  cudaSetDevice(previous);
}

// Every device idle before any rank frees its semaphores: a signal queued on one GPU writes another's.
Group::~Group() {
  int previous = 0;
  cudaGetDevice(&previous);
  for (auto& rank : ranks_) {
    cudaSetDevice(rank->device_);
    cudaDeviceSynchronize();
  }
  cudaSetDevice(previous);
}

}  // namespace v11_tensor_parallel
