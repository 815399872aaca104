/* nvshmem.h: NVSHMEM 3.x's API on Symmetra (docs/nvshmem.md lists every name and its status).
 * Written from NVSHMEM's documentation, so that NVSHMEM programs build unchanged against
 * libsymmetra_nvshmem: change the include path and the library, nothing else.
 *
 * Host code (C or C++) calls the library. In CUDA code (nvcc), the functions NVSHMEM makes
 * callable from both sides are __host__ __device__: on the device they run Symmetra's device API
 * (symmetra/device.hpp) on a copy of the PE's device state that each translation unit keeps in
 * __constant__ memory, filled by nvshmem_init (and again whenever it changes). So kernels need
 * no context argument and no -rdc; -rdc=true works too. One PE per process, as in NVSHMEM.
 *
 * Threads: the host calls, as NVSHMEM's (one thread at a time for init and finalize). Ordering:
 * as OpenSHMEM 1.5 and NVSHMEM say, per call below. */
#ifndef SYMMETRA_NVSHMEM_H
#define SYMMETRA_NVSHMEM_H

#include <stddef.h>
#include <stdint.h>

/* The NVSHMEM release whose API this follows. */
#define NVSHMEM_MAJOR_VERSION 3
#define NVSHMEM_MINOR_VERSION 4
#define NVSHMEM_PATCH_VERSION 0
#define NVSHMEM_VENDOR_STRING "Symmetra"
#define NVSHMEM_MAX_NAME_LEN 256

typedef int32_t nvshmem_team_t;

/* The predefined teams. Symmetra's shared team (the PEs of this host, which reach each other by
 * loads and stores) serves both NVSHMEM_TEAM_SHARED and NVSHMEMX_TEAM_NODE;
 * NVSHMEMX_TEAM_SAME_MYPE_NODE (the PEs of every host with this PE's rank on its host) is the
 * column team of a 2-D split of the world by nvshmem_init, where every host holds the same
 * number of PEs in one run (else each PE alone). */
enum {
  NVSHMEM_TEAM_INVALID = -1,
  NVSHMEM_TEAM_WORLD = 0,
  NVSHMEM_TEAM_WORLD_INDEX = 0,
  NVSHMEM_TEAM_SHARED = 1,
  NVSHMEM_TEAM_SHARED_INDEX = 1,
  NVSHMEMX_TEAM_NODE = 2,
  NVSHMEM_TEAM_NODE_INDEX = 2,
  NVSHMEMX_TEAM_SAME_MYPE_NODE = 3,
  NVSHMEM_TEAM_SAME_MYPE_NODE_INDEX = 3
};

/* NVSHMEM team ids to Symmetra team handles: handles 0 and 1 are the world and shared teams,
 * nvshmem_init's 2-D split makes handles 2 (the hosts' rows, not exposed) and 3 (the columns:
 * SAME_MYPE_NODE), and teams made by a split get ids from 8 up, their handle plus 4. */
#define SYMMETRAI_TEAM_HANDLE(t)                                   \
  ((t) == NVSHMEM_TEAM_WORLD || (t) == NVSHMEM_TEAM_SHARED ? (t)   \
   : (t) == NVSHMEMX_TEAM_NODE                             ? 1     \
   : (t) == NVSHMEMX_TEAM_SAME_MYPE_NODE                   ? 3     \
   : (t) >= 8                                              ? (t)-4 \
                                                           : -1)
#define SYMMETRAI_TEAM_ID(handle) ((handle) < 2 || (handle) == 3 ? (handle) : (handle) + 4)

/* A team's configuration (nvshmem_team_split_*), in NVSHMEM 3's layout: num_contexts is
 * accepted and not used; uniqueid names a team that nvshmemx_team_init makes (nvshmemx.h).
 * The initializer's version word is NVSHMEM's (2 << 16 plus the size). */
typedef uint64_t nvshmemx_team_uniqueid_t;
typedef struct {
  int version;
  int num_contexts;
  nvshmemx_team_uniqueid_t uniqueid;
  char padding[48];
} nvshmem_team_config_v2;
typedef nvshmem_team_config_v2 nvshmem_team_config_t;
#define NVSHMEM_TEAM_CONFIG_INITIALIZER                          \
  {                                                              \
    (2 << 16) + (int)sizeof(nvshmem_team_config_t), -1, ~0ull, { \
      0                                                          \
    }                                                            \
  }
#define NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS 0x1L
#define NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID 0x2L

/* Thread levels (nvshmem_init_thread). */
enum {
  NVSHMEM_THREAD_SINGLE = 0,
  NVSHMEM_THREAD_FUNNELED = 1,
  NVSHMEM_THREAD_SERIALIZED = 2,
  NVSHMEM_THREAD_MULTIPLE = 3
};

/* nvshmemx_init_status() */
enum {
  NVSHMEM_STATUS_NOT_INITIALIZED = 0,
  NVSHMEM_STATUS_IS_BOOTSTRAPPED = 1,
  NVSHMEM_STATUS_IS_INITIALIZED = 2
};

/* The comparisons of wait, test and signal_wait_until, and the signal operations. */
enum {
  NVSHMEM_CMP_EQ = 0,
  NVSHMEM_CMP_NE = 1,
  NVSHMEM_CMP_GT = 2,
  NVSHMEM_CMP_LE = 3,
  NVSHMEM_CMP_LT = 4,
  NVSHMEM_CMP_GE = 5
};
enum { NVSHMEM_SIGNAL_SET = 9, NVSHMEM_SIGNAL_ADD = 10 };
/* An NVSHMEM_CMP_ value as Symmetra's Cmp numbers it (EQ NE GT GE LT LE); -1 where not valid. */
#define SYMMETRAI_CMP(c)                                                      \
  ((c) == NVSHMEM_CMP_EQ || (c) == NVSHMEM_CMP_NE || (c) == NVSHMEM_CMP_GT || \
           (c) == NVSHMEM_CMP_LT                                              \
       ? (c)                                                                  \
   : (c) == NVSHMEM_CMP_GE ? 3                                                \
   : (c) == NVSHMEM_CMP_LE ? 5                                                \
                           : -1)

/* half and bfloat16, where CUDA's types are known: every CUDA program, and C++ host code that
 * has CUDA's include directory. (The library names its own 16-bit types, layout-compatible.) */
#if !defined(SYMMETRAI_HALF_T) && defined(__cplusplus) && defined(__has_include)
#if __has_include(<cuda_fp16.h>) && __has_include(<cuda_bf16.h>)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define SYMMETRAI_HALF_T half
#define SYMMETRAI_BFLOAT16_T __nv_bfloat16
#endif
#endif
#ifdef SYMMETRAI_HALF_T
#define SYMMETRAI_NVSHMEM_FLOAT16_TYPES(X) \
  X(bfloat16, SYMMETRAI_BFLOAT16_T) X(half, SYMMETRAI_HALF_T)
#define SYMMETRAI_NVSHMEM_FLOAT16_REDUCE_TYPES(X, OP) \
  X(bfloat16, SYMMETRAI_BFLOAT16_T, OP) X(half, SYMMETRAI_HALF_T, OP)
#else
#define SYMMETRAI_NVSHMEM_FLOAT16_TYPES(X)
#define SYMMETRAI_NVSHMEM_FLOAT16_REDUCE_TYPES(X, OP)
#endif

/* The standard RMA types: NVSHMEM's name, then the C type (half and bfloat16 where CUDA's
 * headers are). */
#define SYMMETRA_NVSHMEM_RMA_TYPES(X) \
  SYMMETRAI_NVSHMEM_FLOAT16_TYPES(X)  \
  X(float, float)                     \
  X(double, double)                   \
  X(char, char)                       \
  X(schar, signed char)               \
  X(short, short)                     \
  X(int, int)                         \
  X(long, long)                       \
  X(longlong, long long)              \
  X(uchar, unsigned char)             \
  X(ushort, unsigned short)           \
  X(uint, unsigned int)               \
  X(ulong, unsigned long)             \
  X(ulonglong, unsigned long long)    \
  X(int8, int8_t)                     \
  X(int16, int16_t)                   \
  X(int32, int32_t)                   \
  X(int64, int64_t)                   \
  X(uint8, uint8_t)                   \
  X(uint16, uint16_t)                 \
  X(uint32, uint32_t)                 \
  X(uint64, uint64_t)                 \
  X(size, size_t)                     \
  X(ptrdiff, ptrdiff_t)

/* The bitwise AMO types; the standard ones (those and five more); the point-to-point
 * synchronization (wait) ones. The extended AMO types (fetch, set, swap) are the standard ones
 * with float and double. */
#define SYMMETRA_NVSHMEM_AMO_BITWISE_TYPES(X) \
  X(uint, unsigned int)                       \
  X(ulong, unsigned long)                     \
  X(ulonglong, unsigned long long)            \
  X(int32, int32_t)                           \
  X(int64, int64_t)                           \
  X(uint32, uint32_t)                         \
  X(uint64, uint64_t)
#define SYMMETRA_NVSHMEM_AMO_TYPES(X)   \
  X(int, int)                           \
  X(long, long)                         \
  X(longlong, long long)                \
  SYMMETRA_NVSHMEM_AMO_BITWISE_TYPES(X) \
  X(size, size_t)                       \
  X(ptrdiff, ptrdiff_t)
#define SYMMETRA_NVSHMEM_WAIT_TYPES(X) \
  X(short, short)                      \
  X(ushort, unsigned short)            \
  SYMMETRA_NVSHMEM_AMO_TYPES(X)

/* The calls NVSHMEM makes callable on both sides, as X(name, return, parameters, arguments) for
 * whatever X is defined where SYMMETRA_NVSHMEM_BOTH_SIDED is used. The library exports each
 * under its own name for C and C++ host code, and under symmetrai_host_ for the host side of
 * the CUDA forms (nvshmem_device.cuh). */
#define SYMMETRA_NVSHMEM_TYPED_RMA(NAME, T)                                                     \
  X(NAME##_p, void, (T * dest, T value, int pe), (dest, value, pe))                             \
  X(NAME##_g, T, (const T* src, int pe), (src, pe))                                             \
  X(NAME##_put, void, (T * dest, const T* src, size_t nelems, int pe), (dest, src, nelems, pe)) \
  X(NAME##_get, void, (T * dest, const T* src, size_t nelems, int pe), (dest, src, nelems, pe))
#define SYMMETRA_NVSHMEM_TYPED_AMO(NAME, T)                                     \
  X(NAME##_atomic_fetch_inc, T, (T * dest, int pe), (dest, pe))                 \
  X(NAME##_atomic_inc, void, (T * dest, int pe), (dest, pe))                    \
  X(NAME##_atomic_fetch_add, T, (T * dest, T value, int pe), (dest, value, pe)) \
  X(NAME##_atomic_add, void, (T * dest, T value, int pe), (dest, value, pe))    \
  X(NAME##_atomic_compare_swap, T, (T * dest, T cond, T value, int pe), (dest, cond, value, pe))
#define SYMMETRA_NVSHMEM_TYPED_AMO_EXTENDED(NAME, T)                         \
  X(NAME##_atomic_fetch, T, (const T* src, int pe), (src, pe))               \
  X(NAME##_atomic_set, void, (T * dest, T value, int pe), (dest, value, pe)) \
  X(NAME##_atomic_swap, T, (T * dest, T value, int pe), (dest, value, pe))
#define SYMMETRA_NVSHMEM_TYPED_AMO_BITWISE(NAME, T)                             \
  X(NAME##_atomic_fetch_and, T, (T * dest, T value, int pe), (dest, value, pe)) \
  X(NAME##_atomic_and, void, (T * dest, T value, int pe), (dest, value, pe))    \
  X(NAME##_atomic_fetch_or, T, (T * dest, T value, int pe), (dest, value, pe))  \
  X(NAME##_atomic_or, void, (T * dest, T value, int pe), (dest, value, pe))     \
  X(NAME##_atomic_fetch_xor, T, (T * dest, T value, int pe), (dest, value, pe)) \
  X(NAME##_atomic_xor, void, (T * dest, T value, int pe), (dest, value, pe))
#define SYMMETRA_NVSHMEM_TYPED_WAIT(NAME, T)                                           \
  X(NAME##_wait_until, void, (T * ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value)) \
  X(NAME##_test, int, (T * ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value))
#define SYMMETRA_NVSHMEM_BOTH_SIDED                                                              \
  X(my_pe, int, (void), ())                                                                      \
  X(n_pes, int, (void), ())                                                                      \
  X(team_my_pe, int, (nvshmem_team_t team), (team))                                              \
  X(team_n_pes, int, (nvshmem_team_t team), (team))                                              \
  X(ptr, void*, (const void* dest, int pe), (dest, pe))                                          \
  X(quiet, void, (void), ())                                                                     \
  X(fence, void, (void), ())                                                                     \
  X(barrier_all, void, (void), ())                                                               \
  X(sync_all, void, (void), ())                                                                  \
  X(putmem, void, (void* dest, const void* src, size_t bytes, int pe), (dest, src, bytes, pe))   \
  X(getmem, void, (void* dest, const void* src, size_t bytes, int pe), (dest, src, bytes, pe))   \
  X(putmem_signal, void,                                                                         \
    (void* dest, const void* src, size_t bytes, uint64_t* sig_addr, uint64_t signal, int sig_op, \
     int pe),                                                                                    \
    (dest, src, bytes, sig_addr, signal, sig_op, pe))                                            \
  X(signal_fetch, uint64_t, (const uint64_t* sig_addr), (sig_addr))                              \
  X(signal_wait_until, uint64_t, (uint64_t * sig_addr, int cmp, uint64_t cmp_value),             \
    (sig_addr, cmp, cmp_value))                                                                  \
  SYMMETRA_NVSHMEM_RMA_TYPES(SYMMETRA_NVSHMEM_TYPED_RMA)                                         \
  SYMMETRA_NVSHMEM_AMO_TYPES(SYMMETRA_NVSHMEM_TYPED_AMO)                                         \
  SYMMETRA_NVSHMEM_AMO_TYPES(SYMMETRA_NVSHMEM_TYPED_AMO_EXTENDED)                                \
  SYMMETRA_NVSHMEM_TYPED_AMO_EXTENDED(float, float)                                              \
  SYMMETRA_NVSHMEM_TYPED_AMO_EXTENDED(double, double)                                            \
  SYMMETRA_NVSHMEM_AMO_BITWISE_TYPES(SYMMETRA_NVSHMEM_TYPED_AMO_BITWISE)                         \
  SYMMETRA_NVSHMEM_WAIT_TYPES(SYMMETRA_NVSHMEM_TYPED_WAIT)

/* More calls on both sides: the job's end from one PE (from a kernel: that kernel stops with a
 * message, and the job ends when the host sees the kernel fail). */
#define SYMMETRA_NVSHMEM_MISC_BOTH_SIDED X(global_exit, void, (int status), (status))

#include "symmetra/nvshmem_coll.h"
#include "symmetra/nvshmem_rma.h"
#include "symmetra/nvshmem_wait.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over every PE: joins the job (as symrun, a Slurm-like launcher or PMIx started
 * it), makes the symmetric heap (NVSHMEM_SYMMETRIC_SIZE, else SYMMETRA_SYMMETRIC_SIZE) on the
 * GPU where one is visible (SYMMETRA_BACKEND overrides), and fills every CUDA module's device
 * state. A second call is counted and does nothing. */
void nvshmem_init(void);
/* Collective: the last finalize ends the PE's part in the job. */
void nvshmem_finalize(void);
int nvshmemx_init_status(void);
void nvshmem_info_get_version(int* major, int* minor);
void nvshmem_info_get_name(char* name);
/* nvshmem_init, then the level the backend serves (MULTIPLE on the CPU backend, SERIALIZED on the
 * GPU's host forms); 0 on success. */
int nvshmem_init_thread(int requested, int* provided);
void nvshmem_query_thread(int* provided);

/* Collective over the parent team's members: a new team of PE_size members PE_start,
 * PE_start + PE_stride, ... of the parent; NVSHMEM_TEAM_INVALID on the PEs outside it. 0 on
 * success, nonzero (with the reason on stderr) where the arguments name no team. */
int nvshmem_team_split_strided(nvshmem_team_t parent_team, int PE_start, int PE_stride, int PE_size,
                               const nvshmem_team_config_t* config, long config_mask,
                               nvshmem_team_t* new_team);
/* Collective: a grid of xrange columns; x-teams are rows, y-teams columns. */
int nvshmem_team_split_2d(nvshmem_team_t parent_team, int xrange,
                          const nvshmem_team_config_t* xaxis_config, long xaxis_mask,
                          nvshmem_team_t* xaxis_team, const nvshmem_team_config_t* yaxis_config,
                          long yaxis_mask, nvshmem_team_t* yaxis_team);
/* The number in dest_team of src_team's member src_pe; -1 where it is not a member. */
int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team);
/* Collective over the team's members; the predefined teams cannot be destroyed. */
void nvshmem_team_destroy(nvshmem_team_t team);
/* The configuration a team was made with, for the fields config_mask selects: 0 contexts
 * (NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS), which Symmetra's teams do not use, and the unique id
 * of a team nvshmemx_team_init made (NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID; ~0 for others, as
 * NVSHMEM's initializer). 0, or nonzero where `team` names no team. */
int nvshmem_team_get_config(nvshmem_team_t team, long config_mask, nvshmem_team_config_t* config);

/* Collective over the world, with a barrier, as NVSHMEM's: the same size on every PE. NULL
 * where the heap cannot hold it (the reason is logged). */
void* nvshmem_malloc(size_t size);
void* nvshmem_calloc(size_t count, size_t size);
void* nvshmem_align(size_t alignment, size_t size);
/* Collective: the block at `ptr` grown or shrunk to `size` bytes, its contents kept up to the
 * smaller size (NULL ptr: a malloc; size 0: a free, NULL). NULL where the heap cannot hold it. */
void* nvshmem_realloc(void* ptr, size_t size);
void nvshmem_free(void* ptr);

/* Host-only forms of the both-sided calls, for the CUDA forms' host side. */
#define X(name, ret, params, args) ret symmetrai_host_##name params;
SYMMETRA_NVSHMEM_BOTH_SIDED
SYMMETRA_NVSHMEM_MISC_BOTH_SIDED
SYMMETRA_NVSHMEM_RMA_BOTH_SIDED
SYMMETRA_NVSHMEM_WAIT_BOTH_SIDED
SYMMETRA_NVSHMEM_COLL_BOTH_SIDED
#undef X
void symmetrai_host_signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);
void* symmetrai_host_mc_ptr(nvshmem_team_t team, const void* ptr);
void symmetrai_host_vendor_get_version_info(int* major, int* minor, int* patch);

/* A CUDA module registers the function that copies the device state into its __constant__
 * copy (the CUDA forms below do it for each translation unit, before main). Host code, any
 * thread; returns a cudaError_t's value. */
typedef int (*symmetrai_module_update_t)(const void* state, size_t bytes);
void symmetrai_register_module(symmetrai_module_update_t update);

#if !defined(__CUDACC__)
/* Host code: the library's own functions. */
#define X(name, ret, params, args) ret nvshmem_##name params;
SYMMETRA_NVSHMEM_BOTH_SIDED
SYMMETRA_NVSHMEM_MISC_BOTH_SIDED
SYMMETRA_NVSHMEM_RMA_BOTH_SIDED
SYMMETRA_NVSHMEM_WAIT_BOTH_SIDED
SYMMETRA_NVSHMEM_COLL_BOTH_SIDED
#undef X
void nvshmemx_signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);
#endif

#ifdef __cplusplus
}
#endif

#if defined(__CUDACC__)
#include "symmetra/nvshmem_device.cuh"
#include "symmetra/nvshmem_device_coll.cuh"
#include "symmetra/nvshmem_device_rma.cuh"
#include "symmetra/nvshmem_device_wait.cuh"
#endif

#endif /* SYMMETRA_NVSHMEM_H */
