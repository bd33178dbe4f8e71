// The device state of a persistent rung's faster form (v5 on), owned by the caller:
//   - the dynamic queue's counter (v5 to v8): one int, zero between launches. A kernel's CTAs draw
//     their next tile from it with atomicAdd, and the CTA that draws the last number resets it.
//   - stream-K's scratch (v9): a slot per SM for the fp32 partial tile of a CTA that computed only
//     part of a tile's K-steps, and flags, zero between launches, saying a slot is ready; the CTA
//     that adds a slot into its tile clears the slot's flag.
// Both leave the state as they found it, so the next launch that uses the queue finds it ready:
// that next launch must not start before this one has ended. The contract:
//   - launches that share a queue are stream-ordered (one stream, or ordered by events); two that
//     may run at once each need their own queue. cudaStreamPerThread is a different stream in
//     every thread: one queue per thread. A graph that captured a launch with a queue holds the
//     queue's address: replay it on one stream at a time.
//   - a queue belongs to the device it was made on; a launch on another device refuses it.
//   - making one allocates (about 17 MB on a 132-SM GPU) and synchronizes: make it before a stream
//     capture, not during one.
//   - stream-K's finisher waits for CTAs of its own grid with lower indices: it relies only on a
//     grid's CTAs starting in index order, so a launch that starts in parts, beside other kernels
//     holding SMs, still finishes (docs/v9_stream_k.md, Pitfalls).
// A call that passes no queue uses a static schedule instead, which needs no state at all.
#pragma once

namespace hopper {

class TileQueue {
 public:
  // A slot holds a partial tile of at most 128 × 256 fp32 values, and has a flag per consumer warpgroup.
  static constexpr int partial_floats = 128 * 256;
  static constexpr int flags_per_slot = 2;

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
  // Stream-K's scratch, checked the same way: `slots` slots of partial_floats, and their flags.
  int slots() const { return slots_; }
  float* partials() const;
  int* flags() const;

 private:
  int device_ = -1;
  int slots_ = 0;
  int* counter_ = nullptr;  // then the flags, in the same allocation
  float* partials_ = nullptr;
};

// The counter a launch passes to its kernel: the queue's, or null (the static stride).
inline int* counter_of(const TileQueue* queue) { return queue ? queue->counter() : nullptr; }

}  // namespace hopper
