#include "common/hopper/tile_queue.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "common/hopper/launch.h"

namespace hopper {

TileQueue::TileQueue() : device_(detail::current_device()) {
  detail::check(cudaMalloc(&counter_, sizeof(int)), "TileQueue: cudaMalloc");
  // On the legacy stream, which every blocking stream waits for, and waited for here: the counter
  // is zero before any launch on any stream can read it.
  detail::check(cudaMemsetAsync(counter_, 0, sizeof(int), cudaStreamLegacy), "TileQueue: cudaMemsetAsync");
  detail::check(cudaStreamSynchronize(cudaStreamLegacy), "TileQueue: cudaStreamSynchronize");
}

TileQueue::~TileQueue() {
  if (counter_ != nullptr) cudaFree(counter_);  // waits for the launches still using it
}

TileQueue::TileQueue(TileQueue&& other) noexcept
    : device_(other.device_), counter_(std::exchange(other.counter_, nullptr)) {}

TileQueue& TileQueue::operator=(TileQueue&& other) noexcept {
  std::swap(device_, other.device_);
  std::swap(counter_, other.counter_);
  return *this;
}

int* TileQueue::counter() const {
  if (counter_ == nullptr) throw std::invalid_argument("TileQueue: this queue was moved from; it has no counter");
  const int device = detail::current_device();
  if (device != device_)
    throw std::invalid_argument("TileQueue: made on device " + std::to_string(device_) +
                                ", passed to a launch on device " + std::to_string(device) +
                                ": a queue belongs to the device it was made on");
  return counter_;
}

}  // namespace hopper
