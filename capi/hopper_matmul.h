/* hopper_matmul: the course's rungs behind a C ABI, for callers that are not C++ (python/hopper_matmul
 * loads it with ctypes). C = A·Bᵀ with A m×k, B n×k and C m×n, row-major device pointers, fp16 or
 * bf16 in and out, fp32 accumulation; the same rules and refusals as each rung's C++ matmul().
 *
 * Every call returns a status; on failure hm_last_error() gives the message of this thread's last
 * failure (the C++ exception's text: it names the value and the rule), and nothing was launched
 * unless the status is HM_CUDA_ERROR. Nothing here keeps state between calls except a queue the
 * caller made, so a call may be captured into a CUDA graph and made from many threads. */
#ifndef HOPPER_MATMUL_H
#define HOPPER_MATMUL_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the shared library exports; everything else in it is hidden. */
#if defined(__GNUC__)
#define HM_API __attribute__((visibility("default")))
#else
#define HM_API
#endif

typedef enum { HM_FP16 = 0, HM_BF16 = 1 } hm_dtype;

typedef enum {
  HM_OK = 0,
  HM_INVALID_ARGUMENT = 1, /* a bad shape, pointer, dtype or queue: nothing launched */
  HM_UNKNOWN_VERSION = 2,  /* no rung of that name (hm_version_name lists them) */
  HM_NOT_IMPLEMENTED = 3,  /* a valid problem this rung cannot run */
  HM_CUDA_ERROR = 4        /* the CUDA runtime failed: no GPU, out of memory, a failed launch */
} hm_status;

/* The message of this thread's last failure, "" if none; valid until its next call here. */
HM_API const char* hm_last_error(void);

/* The rungs, in ladder order: hm_version_name(i) for 0 <= i < hm_version_count(), else NULL. */
HM_API int hm_version_count(void);
HM_API const char* hm_version_name(int i);

/* A rung's device state for its faster form (common/hopper/tile_queue.h): the tile queue's counter
 * and stream-K's scratch, on the current device, about 17 MB on 132 SMs. Launches that share one
 * must be stream-ordered; make it before a stream capture, not during one. */
typedef struct hm_queue hm_queue;
HM_API hm_status hm_queue_create(hm_queue** queue);
HM_API void hm_queue_destroy(hm_queue* queue);

/* C = A·Bᵀ by rung `version` on `stream` (NULL: the legacy default stream) of the current device.
 * `queue` may be NULL: the rung's stateless form (rungs below v5 ignore the queue). */
HM_API hm_status hm_matmul(const char* version, hm_dtype dtype, const void* a, const void* b, void* c, int m,
                           int n, int k, cudaStream_t stream, hm_queue* queue);

#ifdef __cplusplus
}
#endif

#endif /* HOPPER_MATMUL_H */
