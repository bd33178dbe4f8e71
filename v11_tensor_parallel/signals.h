// The storer form's flags and the ring's sum: small kernels, one launch each, stream-ordered.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

namespace v11_tensor_parallel {

// A semaphore is an int in some rank's memory. signal adds one to it (a release at system scope:
// every write this stream made before, a peer's memory included, is seen first); wait blocks the
// stream until it is at least one, then takes one back. Counting, not setting, so a signal that
// comes before its wait is never lost, and no launch has to lower a flag for the next one.
void signal(int* semaphore, cudaStream_t stream);
void wait(int* semaphore, cudaStream_t stream);

// Loads these kernels on the current device now. With lazy loading (CUDA's default) a kernel is
// loaded at its first launch, which may synchronize the device, and so wait forever for a wait
// kernel already spinning there: the group loads them when it is made.
void load_kernels();

// out[i] = a[i] + b[i] over `count` elements of T (fp16 or bf16), summed in fp32. out may be a
// peer's memory.
template <typename T>
void add(T* out, const T* a, const T* b, std::size_t count, cudaStream_t stream);

}  // namespace v11_tensor_parallel
