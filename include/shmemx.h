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

#ifdef __cplusplus
}
#endif

#endif /* SYMMETRA_SHMEMX_H */
