// The dynamic tile queue's counter (v5 on), owned by the caller: one int of device memory, zero
// between launches. A persistent kernel's CTAs draw their next tile from it with atomicAdd, and
// the CTA that draws the last number resets it to zero, so the next launch that uses it finds it
// ready: that next launch must not start before this one has ended. The contract:
//   - launches that share a queue are stream-ordered (one stream, or ordered by events); two that
//     may run at once each need their own queue. cudaStreamPerThread is a different stream in
//     every thread: one queue per thread. A graph that captured a launch with a queue holds the
//     queue's address: replay it on one stream at a time.
//   - a queue belongs to the device it was made on; a launch on another device refuses it.
//   - making one allocates and synchronizes: make it before a stream capture, not during one.
// A call that passes no queue uses the static stride instead, which needs no state at all.
#pragma once

namespace hopper {

class TileQueue {
 public:
  TileQueue();  // on the current device
  ~TileQueue();
  TileQueue(const TileQueue&) = delete;
  TileQueue& operator=(const TileQueue&) = delete;
  TileQueue(TileQueue&& other) noexcept;
  TileQueue& operator=(TileQueue&& other) noexcept;

  int device() const { return device_; }
  // The counter, for a launch on the current device; std::invalid_argument (naming both devices)
  // when that is not the queue's device.
  int* counter() const;

 private:
  int device_ = -1;
  int* counter_ = nullptr;
};

// The counter a launch passes to its kernel: the queue's, or null (the static stride).
inline int* counter_of(const TileQueue* queue) { return queue ? queue->counter() : nullptr; }

}  // namespace hopper
