/* The OpenSHMEM 1.5 C API over Symmetra (docs/openshmem.md lists every function and its status).
 *
 * Build with `symcc` (C) or `symc++` (C++), start with `symrun -n N prog`. PEs are processes.
 *
 * Threads: every call may be made from any thread after shmem_init_thread granted
 * SHMEM_THREAD_MULTIPLE (the only level Symmetra provides; the others are accepted).
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

/* --- Type tables (OpenSHMEM 1.5 tables 5-13) --- */
#define SHMEM_RMA_TYPES(X)                                                                         \
  X(float, float) X(double, double) X(long double, longdouble) X(char, char) X(signed char, schar) \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned char, uchar)         \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                          \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)             \
  X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64)  \
  X(size_t, size) X(ptrdiff_t, ptrdiff)
#define SHMEM_AMO_STANDARD_TYPES(X)                                                           \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32)      \
  X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
#define SHMEM_AMO_EXTENDED_TYPES(X) SHMEM_AMO_STANDARD_TYPES(X) X(float, float) X(double, double)
#define SHMEM_AMO_BITWISE_TYPES(X)                                                                     \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) \
  X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)
#define SHMEM_P2P_SYNC_TYPES(X)                                                                     \
  X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort)       \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) \
  X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
#define SHMEM_REDUCE_BITWISE_TYPES(X)                                                         \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)          \
  X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
  X(size_t, size)
#define SHMEM_REDUCE_ARITH_TYPES(X)                                                          \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)               \
  X(long long, longlong) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar) X(unsigned short, ushort) \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) \
  X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16)   \
  X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(float, float) X(double, double)
/* The deprecated *_to_all reductions: their own, shorter tables. */
#define SHMEM_TO_ALL_BITWISE_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM_TO_ALL_ARITH_TYPES(X) SHMEM_TO_ALL_BITWISE_TYPES(X) X(float, float) X(double, double)

/* --- Setup, exit and query --- */
void shmem_init(void);
int shmem_init_thread(int requested, int* provided);
void shmem_query_thread(int* provided);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void* addr, int pe);
void* shmem_ptr(const void* dest, int pe);
void shmem_info_get_version(int* major, int* minor);
void shmem_info_get_name(char* name);
/* Deprecated */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);

/* --- Memory management --- */
void* shmem_malloc(size_t size);
void* shmem_malloc_with_hints(size_t size, long hints);
void* shmem_calloc(size_t count, size_t size);
void* shmem_realloc(void* ptr, size_t size);
void* shmem_align(size_t alignment, size_t size);
void shmem_free(void* ptr);
/* Deprecated */
void* shmalloc(size_t size);
void shfree(void* ptr);
void* shrealloc(void* ptr, size_t size);
void* shmemalign(size_t alignment, size_t size);

/* --- Teams --- */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t* config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t* config, long config_mask, shmem_team_t* new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t* xaxis_config,
                        long xaxis_mask, shmem_team_t* xaxis_team, const shmem_team_config_t* yaxis_config,
                        long yaxis_mask, shmem_team_t* yaxis_team);
void shmem_team_destroy(shmem_team_t team);

/* --- Contexts --- */
int shmem_ctx_create(long options, shmem_ctx_t* ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team);

/* --- Remote memory access --- */
#define SYMMETRA_DECL_RMA(T, N)                                                                         \
  void shmem_##N##_put(T* dest, const T* source, size_t nelems, int pe);                                \
  void shmem_ctx_##N##_put(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe);           \
  void shmem_##N##_get(T* dest, const T* source, size_t nelems, int pe);                                \
  void shmem_ctx_##N##_get(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe);           \
  void shmem_##N##_put_nbi(T* dest, const T* source, size_t nelems, int pe);                            \
  void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe);       \
  void shmem_##N##_get_nbi(T* dest, const T* source, size_t nelems, int pe);                            \
  void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe);       \
  void shmem_##N##_p(T* dest, T value, int pe);                                                         \
  void shmem_ctx_##N##_p(shmem_ctx_t ctx, T* dest, T value, int pe);                                    \
  T shmem_##N##_g(const T* source, int pe);                                                             \
  T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T* source, int pe);                                        \
  void shmem_##N##_iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,    \
                            size_t nelems, int pe);                                                     \
  void shmem_##N##_iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,    \
                            size_t nelems, int pe);                                                     \
  void shmem_##N##_put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,              \
                              uint64_t signal, int sig_op, int pe);                                     \
  void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems,             \
                                  uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);             \
  void shmem_##N##_put_signal_nbi(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,          \
                                  uint64_t signal, int sig_op, int pe);                                 \
  void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems,         \
                                      uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_RMA_TYPES(SYMMETRA_DECL_RMA)

#define SYMMETRA_SIZED_BITS(X) X(8) X(16) X(32) X(64) X(128)
#define SYMMETRA_DECL_SIZED(B)                                                                              \
  void shmem_put##B(void* dest, const void* source, size_t nelems, int pe);                                 \
  void shmem_ctx_put##B(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);            \
  void shmem_get##B(void* dest, const void* source, size_t nelems, int pe);                                 \
  void shmem_ctx_get##B(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);            \
  void shmem_put##B##_nbi(void* dest, const void* source, size_t nelems, int pe);                           \
  void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);      \
  void shmem_get##B##_nbi(void* dest, const void* source, size_t nelems, int pe);                           \
  void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);      \
  void shmem_iput##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void shmem_ctx_iput##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,    \
                         size_t nelems, int pe);                                                           \
  void shmem_iget##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void shmem_ctx_iget##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,    \
                         size_t nelems, int pe);                                                           \
  void shmem_put##B##_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,            \
                             uint64_t signal, int sig_op, int pe);                                         \
  void shmem_ctx_put##B##_signal(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,           \
                                 uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);                 \
  void shmem_put##B##_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,        \
                                 uint64_t signal, int sig_op, int pe);                                     \
  void shmem_ctx_put##B##_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,       \
                                     uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);
SYMMETRA_SIZED_BITS(SYMMETRA_DECL_SIZED)
SYMMETRA_DECL_SIZED(mem)

uint64_t shmem_signal_fetch(const uint64_t* sig_addr);
uint64_t shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value);

/* --- Atomic memory operations --- */
#define SYMMETRA_DECL_AMO_STD(T, N)                                                          \
  T shmem_##N##_atomic_fetch_inc(T* dest, int pe);                                           \
  T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T* dest, int pe);                      \
  void shmem_##N##_atomic_inc(T* dest, int pe);                                              \
  void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T* dest, int pe);                         \
  T shmem_##N##_atomic_fetch_add(T* dest, T value, int pe);                                  \
  T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T* dest, T value, int pe);             \
  void shmem_##N##_atomic_add(T* dest, T value, int pe);                                     \
  void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T* dest, T value, int pe);                \
  T shmem_##N##_atomic_compare_swap(T* dest, T cond, T value, int pe);                       \
  T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T* dest, T cond, T value, int pe);  \
  void shmem_##N##_atomic_fetch_inc_nbi(T* fetch, T* dest, int pe);                          \
  void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T* fetch, T* dest, int pe);     \
  void shmem_##N##_atomic_fetch_add_nbi(T* fetch, T* dest, T value, int pe);                 \
  void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe); \
  void shmem_##N##_atomic_compare_swap_nbi(T* fetch, T* dest, T cond, T value, int pe);      \
  void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T cond, T value, int pe);
SHMEM_AMO_STANDARD_TYPES(SYMMETRA_DECL_AMO_STD)
#define SYMMETRA_DECL_AMO_EXT(T, N)                                                    \
  T shmem_##N##_atomic_fetch(const T* source, int pe);                                 \
  T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T* source, int pe);            \
  void shmem_##N##_atomic_set(T* dest, T value, int pe);                               \
  void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T* dest, T value, int pe);          \
  T shmem_##N##_atomic_swap(T* dest, T value, int pe);                                 \
  T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T* dest, T value, int pe);            \
  void shmem_##N##_atomic_fetch_nbi(T* fetch, const T* source, int pe);                \
  void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T* fetch, const T* source, int pe); \
  void shmem_##N##_atomic_swap_nbi(T* fetch, T* dest, T value, int pe);                \
  void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe);
SHMEM_AMO_EXTENDED_TYPES(SYMMETRA_DECL_AMO_EXT)
#define SYMMETRA_DECL_AMO_BIT(T, N)                                                              \
  T shmem_##N##_atomic_fetch_and(T* dest, T value, int pe);                                      \
  T shmem_ctx_##N##_atomic_fetch_and(shmem_ctx_t ctx, T* dest, T value, int pe);                 \
  void shmem_##N##_atomic_and(T* dest, T value, int pe);                                         \
  void shmem_ctx_##N##_atomic_and(shmem_ctx_t ctx, T* dest, T value, int pe);                    \
  T shmem_##N##_atomic_fetch_or(T* dest, T value, int pe);                                       \
  T shmem_ctx_##N##_atomic_fetch_or(shmem_ctx_t ctx, T* dest, T value, int pe);                  \
  void shmem_##N##_atomic_or(T* dest, T value, int pe);                                          \
  void shmem_ctx_##N##_atomic_or(shmem_ctx_t ctx, T* dest, T value, int pe);                     \
  T shmem_##N##_atomic_fetch_xor(T* dest, T value, int pe);                                      \
  T shmem_ctx_##N##_atomic_fetch_xor(shmem_ctx_t ctx, T* dest, T value, int pe);                 \
  void shmem_##N##_atomic_xor(T* dest, T value, int pe);                                         \
  void shmem_ctx_##N##_atomic_xor(shmem_ctx_t ctx, T* dest, T value, int pe);                    \
  void shmem_##N##_atomic_fetch_and_nbi(T* fetch, T* dest, T value, int pe);                     \
  void shmem_ctx_##N##_atomic_fetch_and_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe); \
  void shmem_##N##_atomic_fetch_or_nbi(T* fetch, T* dest, T value, int pe);                      \
  void shmem_ctx_##N##_atomic_fetch_or_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe); \
  void shmem_##N##_atomic_fetch_xor_nbi(T* fetch, T* dest, T value, int pe);                     \
  void shmem_ctx_##N##_atomic_fetch_xor_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe);
SHMEM_AMO_BITWISE_TYPES(SYMMETRA_DECL_AMO_BIT)

/* Deprecated AMO names (OpenSHMEM 1.3). */
#define SYMMETRA_DECL_AMO_OLD(T, N)                              \
  T shmem_##N##_fadd(T* dest, T value, int pe);                  \
  T shmem_##N##_finc(T* dest, int pe);                           \
  void shmem_##N##_add(T* dest, T value, int pe);                \
  void shmem_##N##_inc(T* dest, int pe);                         \
  T shmem_##N##_cswap(T* dest, T cond, T value, int pe);         \
  T shmem_##N##_swap(T* dest, T value, int pe);                  \
  T shmem_##N##_fetch(const T* source, int pe);                  \
  void shmem_##N##_set(T* dest, T value, int pe);
SYMMETRA_DECL_AMO_OLD(int, int)
SYMMETRA_DECL_AMO_OLD(long, long)
SYMMETRA_DECL_AMO_OLD(long long, longlong)
float shmem_float_swap(float* dest, float value, int pe);
double shmem_double_swap(double* dest, double value, int pe);
float shmem_float_fetch(const float* source, int pe);
double shmem_double_fetch(const double* source, int pe);
void shmem_float_set(float* dest, float value, int pe);
void shmem_double_set(double* dest, double value, int pe);

/* --- Point-to-point synchronization --- */
#define SYMMETRA_DECL_P2P(T, N)                                                                             \
  void shmem_##N##_wait_until(T* ivar, int cmp, T cmp_value);                                               \
  void shmem_##N##_wait_until_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value);        \
  size_t shmem_##N##_wait_until_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value);      \
  size_t shmem_##N##_wait_until_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,  \
                                     T cmp_value);                                                          \
  void shmem_##N##_wait_until_all_vector(T* ivars, size_t nelems, const int* status, int cmp,               \
                                         T* cmp_values);                                                    \
  size_t shmem_##N##_wait_until_any_vector(T* ivars, size_t nelems, const int* status, int cmp,             \
                                           T* cmp_values);                                                  \
  size_t shmem_##N##_wait_until_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status,    \
                                            int cmp, T* cmp_values);                                        \
  int shmem_##N##_test(T* ivar, int cmp, T cmp_value);                                                      \
  int shmem_##N##_test_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value);               \
  size_t shmem_##N##_test_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value);            \
  size_t shmem_##N##_test_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,        \
                               T cmp_value);                                                                \
  int shmem_##N##_test_all_vector(T* ivars, size_t nelems, const int* status, int cmp, T* cmp_values);      \
  size_t shmem_##N##_test_any_vector(T* ivars, size_t nelems, const int* status, int cmp, T* cmp_values);   \
  size_t shmem_##N##_test_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp, \
                                      T* cmp_values);                                                       \
  void shmem_##N##_wait(T* ivar, T cmp_value);
SHMEM_P2P_SYNC_TYPES(SYMMETRA_DECL_P2P)

/* --- Memory ordering and barriers --- */
void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);
void shmem_barrier_all(void);
void shmem_sync_all(void);
int shmem_team_sync(shmem_team_t team);
/* Deprecated active-set forms. */
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long* pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long* pSync);

/* --- Collectives over teams --- */
int shmem_broadcastmem(shmem_team_t team, void* dest, const void* source, size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void* dest, const void* source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void* dest, const void* source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void* dest, const void* source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems);
#define SYMMETRA_DECL_COLL(T, N)                                                                          \
  int shmem_##N##_broadcast(shmem_team_t team, T* dest, const T* source, size_t nelems, int PE_root);     \
  int shmem_##N##_collect(shmem_team_t team, T* dest, const T* source, size_t nelems);                    \
  int shmem_##N##_fcollect(shmem_team_t team, T* dest, const T* source, size_t nelems);                   \
  int shmem_##N##_alltoall(shmem_team_t team, T* dest, const T* source, size_t nelems);                   \
  int shmem_##N##_alltoalls(shmem_team_t team, T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,    \
                            size_t nelems);
SHMEM_RMA_TYPES(SYMMETRA_DECL_COLL)
#define SYMMETRA_DECL_REDUCE(T, N, OP) \
  int shmem_##N##_##OP##_reduce(shmem_team_t team, T* dest, const T* source, size_t nreduce);
#define SYMMETRA_DECL_REDUCE_BIT(T, N) \
  SYMMETRA_DECL_REDUCE(T, N, and) SYMMETRA_DECL_REDUCE(T, N, or) SYMMETRA_DECL_REDUCE(T, N, xor)
#define SYMMETRA_DECL_REDUCE_ARITH(T, N)                                                 \
  SYMMETRA_DECL_REDUCE(T, N, max) SYMMETRA_DECL_REDUCE(T, N, min) SYMMETRA_DECL_REDUCE(T, N, sum) \
  SYMMETRA_DECL_REDUCE(T, N, prod)
SHMEM_REDUCE_BITWISE_TYPES(SYMMETRA_DECL_REDUCE_BIT)
SHMEM_REDUCE_ARITH_TYPES(SYMMETRA_DECL_REDUCE_ARITH)
SYMMETRA_DECL_REDUCE_ARITH(long double, longdouble)
/* The complex types: C only (C++ has no _Complex; pass std::complex through the C names). */
#ifndef __cplusplus
SYMMETRA_DECL_REDUCE(float _Complex, complexf, sum)
SYMMETRA_DECL_REDUCE(float _Complex, complexf, prod)
SYMMETRA_DECL_REDUCE(double _Complex, complexd, sum)
SYMMETRA_DECL_REDUCE(double _Complex, complexd, prod)
#endif

/* Deprecated active-set collectives. */
void shmem_broadcast32(void* dest, const void* source, size_t nelems, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long* pSync);
void shmem_broadcast64(void* dest, const void* source, size_t nelems, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long* pSync);
void shmem_collect32(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,
                     int PE_size, long* pSync);
void shmem_collect64(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,
                     int PE_size, long* pSync);
void shmem_fcollect32(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,
                      int PE_size, long* pSync);
void shmem_fcollect64(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,
                      int PE_size, long* pSync);
void shmem_alltoall32(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,
                      int PE_size, long* pSync);
void shmem_alltoall64(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,
                      int PE_size, long* pSync);
void shmem_alltoalls32(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start,
                       int logPE_stride, int PE_size, long* pSync);
void shmem_alltoalls64(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start,
                       int logPE_stride, int PE_size, long* pSync);
#define SYMMETRA_DECL_TO_ALL(T, N, OP)                                                                 \
  void shmem_##N##_##OP##_to_all(T* dest, const T* source, int nreduce, int PE_start, int logPE_stride, \
                                 int PE_size, T* pWrk, long* pSync);
#define SYMMETRA_DECL_TO_ALL_BIT(T, N) \
  SYMMETRA_DECL_TO_ALL(T, N, and) SYMMETRA_DECL_TO_ALL(T, N, or) SYMMETRA_DECL_TO_ALL(T, N, xor)
#define SYMMETRA_DECL_TO_ALL_ARITH(T, N)                                                     \
  SYMMETRA_DECL_TO_ALL(T, N, max) SYMMETRA_DECL_TO_ALL(T, N, min) SYMMETRA_DECL_TO_ALL(T, N, sum) \
  SYMMETRA_DECL_TO_ALL(T, N, prod)
SHMEM_TO_ALL_BITWISE_TYPES(SYMMETRA_DECL_TO_ALL_BIT)
SHMEM_TO_ALL_ARITH_TYPES(SYMMETRA_DECL_TO_ALL_ARITH)

/* --- Distributed locking --- */
void shmem_set_lock(long* lock);
void shmem_clear_lock(long* lock);
int shmem_test_lock(long* lock);

/* --- Cache management (deprecated no-ops: memory is coherent) --- */
void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void* dest);
void shmem_set_cache_line_inv(void* dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void* dest);

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
