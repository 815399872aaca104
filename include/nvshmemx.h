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

/* The team collectives on `stream` (symmetra/nvshmem_coll.h says what each computes): enqueued in
 * stream order, complete when the stream reaches the point after them. A null stream runs the
 * host form. */
int nvshmemx_barrier_on_stream(nvshmem_team_t team, cudaStream_t stream);
int nvshmemx_team_sync_on_stream(nvshmem_team_t team, cudaStream_t stream);
int nvshmemx_broadcastmem_on_stream(nvshmem_team_t team, void* dest, const void* src, size_t nelem,
                                    int PE_root, cudaStream_t stream);
int nvshmemx_fcollectmem_on_stream(nvshmem_team_t team, void* dest, const void* src, size_t nelem,
                                   cudaStream_t stream);
int nvshmemx_alltoallmem_on_stream(nvshmem_team_t team, void* dest, const void* src, size_t nelem,
                                   cudaStream_t stream);
#define SYMMETRAI_DECL_COLL_ON_STREAM(NAME, T)                                               \
  int nvshmemx_##NAME##_broadcast_on_stream(nvshmem_team_t team, T* dest, const T* src,      \
                                            size_t nelem, int PE_root, cudaStream_t stream); \
  int nvshmemx_##NAME##_fcollect_on_stream(nvshmem_team_t team, T* dest, const T* src,       \
                                           size_t nelem, cudaStream_t stream);               \
  int nvshmemx_##NAME##_alltoall_on_stream(nvshmem_team_t team, T* dest, const T* src,       \
                                           size_t nelem, cudaStream_t stream);
SYMMETRA_NVSHMEM_COLL_TYPES(SYMMETRAI_DECL_COLL_ON_STREAM)
#undef SYMMETRAI_DECL_COLL_ON_STREAM
#define SYMMETRAI_DECL_REDUCE_ON_STREAM(NAME, T, OP)                                               \
  int nvshmemx_##NAME##_##OP##_reduce_on_stream(nvshmem_team_t team, T* dest, const T* src,        \
                                                size_t nreduce, cudaStream_t stream);              \
  int nvshmemx_##NAME##_##OP##_reducescatter_on_stream(nvshmem_team_t team, T* dest, const T* src, \
                                                       size_t nreduce, cudaStream_t stream);
SYMMETRA_NVSHMEM_REDUCTIONS(SYMMETRAI_DECL_REDUCE_ON_STREAM)
#undef SYMMETRAI_DECL_REDUCE_ON_STREAM

#ifdef __cplusplus
}
#endif

#endif /* SYMMETRA_NVSHMEMX_H */
