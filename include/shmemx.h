/* Symmetra's extensions to the OpenSHMEM C API (docs/openshmem.md). Include after shmem.h. */
#ifndef SYMMETRA_SHMEMX_H
#define SYMMETRA_SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds on a monotonic clock, for timing (as other implementations' shmemx_wtime). Threads: any.
 */
double shmemx_wtime(void);

/* The symmetra::Runtime under this process's OpenSHMEM state (NULL before shmem_init), for C++
 * code that mixes the C API with the Runtime's own (stream forms, GPU device API, algorithm
 * choice): `auto* rt = static_cast<symmetra::Runtime*>(shmemx_runtime());`. The OpenSHMEM
 * library keeps ownership; shmem_finalize ends it. */
void* shmemx_runtime(void);

/* Local completion: this PE's earlier non-blocking operations (of the default context, or of
 * ctx) no longer need their buffers: a put's source may be reused, a get's destination holds its
 * data. Unlike shmem_quiet, nothing is promised about their visibility at the targets, and across
 * hosts it waits for less (over UCX, only the gets in flight). SHMEM_CTX_INVALID: nothing. */
void shmemx_flush(void);
void shmemx_ctx_flush(shmem_ctx_t ctx);

/* Floating-point atomic add and fetch-add (float, double), on another PE's symmetric word, with
 * the ordering and completion of the standard's integer atomic_add / atomic_fetch_add. A word
 * that other PEs also update only through these (or the float/double atomic_set, swap and fetch)
 * sees every addition exactly once; the order of concurrent additions is not specified, so a sum
 * of values whose order matters in floating point may differ from run to run. Threads: as the
 * context's. */
void shmemx_float_atomic_add(float* dest, float value, int pe);
void shmemx_double_atomic_add(double* dest, double value, int pe);
float shmemx_float_atomic_fetch_add(float* dest, float value, int pe);
double shmemx_double_atomic_fetch_add(double* dest, double value, int pe);
void shmemx_ctx_float_atomic_add(shmem_ctx_t ctx, float* dest, float value, int pe);
void shmemx_ctx_double_atomic_add(shmem_ctx_t ctx, double* dest, double value, int pe);
float shmemx_ctx_float_atomic_fetch_add(shmem_ctx_t ctx, float* dest, float value, int pe);
double shmemx_ctx_double_atomic_fetch_add(shmem_ctx_t ctx, double* dest, double value, int pe);

#ifdef __cplusplus
}
#endif

#endif /* SYMMETRA_SHMEMX_H */
