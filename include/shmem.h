/* The OpenSHMEM 1.5 C API over Symmetra (docs/openshmem.md lists every function and its status).
 *
 * Build with `symcc` (C) or `symc++` (C++), start with `symrun -n N prog`. PEs are processes.
 *
 * Threads: shmem_init_thread grants SHMEM_THREAD_MULTIPLE on the CPU backend (several threads
 * of a PE in puts, gets, atomics, waits, quiet and contexts at once, and collectives, as the
 * standard has it, on one thread at a time) and SHMEM_THREAD_SERIALIZED on the GPU backend.
 * Ordering (OpenSHMEM 1.5 section 9): puts and AMOs to one PE are ordered by shmem_fence and
 * complete with shmem_quiet; put_signal makes the data visible before the signal. On the CPU
 * backend every put, get and AMO is complete when it returns, so the non-blocking (_nbi) forms
 * complete at once too; fence and quiet still order stores for other PEs' loads.
 * Errors: a call with bad arguments (an address outside the symmetric heap, a PE out of range)
 * stops the job with "[pe N] shmem_xxx: what was wrong"; calls that return a status return
 * nonzero on failure instead.
 * Type tables: the SHMEM_*_TYPES(X) macros below list (C type, TYPENAME) pairs as the standard's
 * tables do; each typed family is declared once per row.
 */
#ifndef SYMMETRA_SHMEM_H
#define SYMMETRA_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#include <complex>
extern "C" {
#endif

/* --- Library constants --- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 64
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "Symmetra"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_MALLOC_ATOMICS_REMOTE 1L
#define SHMEM_MALLOC_SIGNAL_REMOTE 2L

#define SHMEM_CTX_PRIVATE 1L
#define SHMEM_CTX_SERIALIZED 2L
#define SHMEM_CTX_NOSTORE 4L

/* Work and sync array sizes of the deprecated active-set collectives. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* --- Handles --- */
/* A team handle: SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED, one a split returned, or
 * SHMEM_TEAM_INVALID. Constants, not objects, so they can initialize static data. */
typedef struct symmetra_team_s* shmem_team_t;
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_TEAM_WORLD ((shmem_team_t)1)
#define SHMEM_TEAM_SHARED ((shmem_team_t)2)

typedef struct {
  int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS 1L

/* A communication context: SHMEM_CTX_DEFAULT, or one shmem_ctx_create made. */
typedef struct symmetra_ctx_s* shmem_ctx_t;
extern struct symmetra_ctx_s symmetra_ctx_default;
#define SHMEM_CTX_DEFAULT (&symmetra_ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* OpenSHMEM 1.6 sessions: hints about a run of operations on a context. */
typedef struct {
  size_t total_ops;
} shmem_ctx_session_config_t;
#define SHMEM_CTX_SESSION_BATCH 1L
#define SHMEM_CTX_SESSION_TOTAL_OPS 1L

/* --- Type tables (OpenSHMEM 1.5 tables 5-13) --- */
// clang-format off
#define SHMEM_RMA_TYPES(X)                                                                        \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char)                      \
  X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)          \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)            \
  X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
  X(size_t, size) X(ptrdiff_t, ptrdiff)
#define SHMEM_AMO_STANDARD_TYPES(X)                                                              \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32)       \
  X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
#define SHMEM_AMO_EXTENDED_TYPES(X) SHMEM_AMO_STANDARD_TYPES(X) X(float, float) X(double, double)
#define SHMEM_AMO_BITWISE_TYPES(X)                                               \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) \
  X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)
#define SHMEM_P2P_SYNC_TYPES(X)                                                               \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort)  \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)              \
  X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) \
  X(ptrdiff_t, ptrdiff)
#define SHMEM_REDUCE_BITWISE_TYPES(X)                                                             \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)            \
  X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
  X(size_t, size)
#define SHMEM_REDUCE_ARITH_TYPES(X)                                                              \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)                  \
  X(long long, longlong) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar) X(unsigned short, ushort) \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) \
  X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16)    \
  X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(float, float) X(double, double)
// clang-format on
/* The deprecated *_to_all reductions: their own, shorter tables. */
// clang-format off
#define SHMEM_TO_ALL_BITWISE_TYPES(X) \
  X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM_TO_ALL_ARITH_TYPES(X) SHMEM_TO_ALL_BITWISE_TYPES(X) X(float, float) X(double, double)
// clang-format on

/* --- Functions (symmetra/shmem_decls.h declares every one; pshmem.h declares the same as
 * pshmem_*, the profiling interface) --- */
#ifdef __cplusplus
#define SYMMETRA_COMPLEXF std::complex<float>
#define SYMMETRA_COMPLEXD std::complex<double>
#else
#define SYMMETRA_COMPLEXF float _Complex
#define SYMMETRA_COMPLEXD double _Complex
#endif
#define SYMMETRA_FN(name) name
#include "symmetra/shmem_decls.h"
#undef SYMMETRA_FN

#ifdef __cplusplus
}
#endif

/* --- C11 generic selection (OpenSHMEM 1.5 section 9.x): shmem_put(dest, source, n, pe) and
 * shmem_put(ctx, dest, source, n, pe), and so on, on the standard C types. --- */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
#include "shmem_generic.h"
#endif
/* The same names as C++ overloads. */
#ifdef __cplusplus
#include "shmem_cxx.h"
#endif

#endif /* SYMMETRA_SHMEM_H */
