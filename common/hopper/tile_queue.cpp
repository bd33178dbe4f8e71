#include "common/hopper/tile_queue.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/hopper/launch.h"

namespace hopper {

TileQueue::TileQueue() : device_(detail::current_device()) {
  detail::check(cudaDeviceGetAttribute(&slots_, cudaDevAttrMultiProcessorCount, device_),
                "TileQueue: cudaDeviceGetAttribute");
  const size_t ints = 1 + size_t(slots_) * flags_per_slot;  // the counter, then the flags
  detail::check(cudaMalloc(&counter_, ints * sizeof(int)), "TileQueue: cudaMalloc");
  detail::check(cudaMalloc(&partials_, size_t(slots_) * partial_floats * sizeof(float)), "TileQueue: cudaMalloc");
  // On the legacy stream, which every blocking stream waits for, and waited for here: the counter
  // and the flags are zero before any launch on any stream can read them.
  detail::check(cudaMemsetAsync(counter_, 0, ints * sizeof(int), cudaStreamLegacy), "TileQueue: cudaMemsetAsync");
  detail::check(cudaStreamSynchronize(cudaStreamLegacy), "TileQueue: cudaStreamSynchronize");
}

TileQueue::~TileQueue() {
  if (counter_ != nullptr) cudaFree(counter_);  // waits for the launches still using it
  if (partials_ != nullptr) cudaFree(partials_);
}

TileQueue::TileQueue(TileQueue&& other) noexcept
    : device_(other.device_),
      slots_(other.slots_),
      counter_(std::exchange(other.counter_, nullptr)),
      partials_(std::exchange(other.partials_, nullptr)) {}

TileQueue& TileQueue::operator=(TileQueue&& other) noexcept {
  std::swap(device_, other.device_);
  std::swap(slots_, other.slots_);
  std::swap(counter_, other.counter_);
  std::swap(partials_, other.partials_);
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

float* TileQueue::partials() const {
  counter();  // the same checks
  return partials_;
}

int* TileQueue::flags() const { return counter() + 1; }

}  // namespace hopper
