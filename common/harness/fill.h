// Device-side input generation and output poisoning.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/dtype.h"

namespace matmul {

// Written over C before every run: a NaN in fp16 and in bf16, and a bit pattern no arithmetic
// produces, so an element still holding it was never written.
inline constexpr uint16_t poison_bits = 0xFFFF;
// Written around C: a finite value (203.25 in fp16), so any change to it is a stray store.
inline constexpr uint16_t guard_bits = 0x5A5A;
// Elements of each guard band, before C's start and past its end (8 KiB: C stays 16-byte aligned).
inline constexpr size_t guard_elements = 4096;

// A seed never used before in this process.
uint64_t fresh_seed();

// The half-width of the uniform distribution for A and B that gives C = A·Bᵀ unit variance:
// var(C) = k · var(a) · var(b) with var(a) = var(b) = scale² / 3.
float input_scale(int64_t k);

// `count` elements of type t, uniform in [-scale, scale), from a counter-based hash of
// (seed, index): the same seed gives the same data.
void fill_uniform(void* data, size_t count, DType t, float scale, uint64_t seed, cudaStream_t stream = nullptr);

// `count` e4m3 values uniform over ±448 (rounded to nearest, saturating), from the same hash.
void fill_e4m3(void* data, size_t count, uint64_t seed, cudaStream_t stream = nullptr);

// `count` scales 2^e, e uniform in [-spread, spread]; with outlier_every = r > 0, entry i is 64
// times larger when its row, i % rows, is a multiple of r (block scales of A: rows = M).
void fill_scales(float* data, size_t count, uint64_t seed, int spread, int64_t rows, int outlier_every,
                 cudaStream_t stream = nullptr);

// Every 16-bit word of data[0, count) set to `bits`.
void fill_bits(void* data, size_t count, uint16_t bits, cudaStream_t stream = nullptr);

}  // namespace matmul
