/* nvshmemx.h: NVSHMEM 3.x's extensions on Symmetra (docs/nvshmem.md): the stream-ordered forms.
 * Each call only enqueues work on `stream` (a cudaStream_t; the GPU backend), in stream order
 * with the caller's kernels and copies, and may be captured in a CUDA graph. */
#ifndef SYMMETRA_NVSHMEMX_H
#define SYMMETRA_NVSHMEMX_H

#include "nvshmem.h"

#if defined(__has_include)
#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#define SYMMETRA_NVSHMEM_HAVE_CUDA_TYPES 1
#endif
#endif
#ifndef SYMMETRA_NVSHMEM_HAVE_CUDA_TYPES
/* Without CUDA's headers (a CPU-only machine): CUDA's own declaration of the stream type. */
struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Every earlier stream-ordered put of this PE complete, then a barrier over every PE, run by a
 * one-thread kernel on `stream`. */
void nvshmemx_barrier_all_on_stream(cudaStream_t stream);
/* A barrier over every PE on `stream`, without the quiet. */
void nvshmemx_sync_all_on_stream(cudaStream_t stream);
/* Completes this stream's earlier stream-ordered operations. */
void nvshmemx_quiet_on_stream(cudaStream_t stream);
void nvshmemx_putmem_on_stream(void* dest, const void* src, size_t bytes, int pe,
                               cudaStream_t stream);
void nvshmemx_getmem_on_stream(void* dest, const void* src, size_t bytes, int pe,
                               cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* SYMMETRA_NVSHMEMX_H */
