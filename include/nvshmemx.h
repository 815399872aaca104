/* nvshmemx.h: NVSHMEM 3.x's extensions on Symmetra (docs/nvshmem.md): the stream-ordered forms.
 * Each call only enqueues work on `stream` (a cudaStream_t; the GPU backend), in stream order
 * with the caller's kernels and copies, and may be captured in a CUDA graph. */
#ifndef SYMMETRA_NVSHMEMX_H
#define SYMMETRA_NVSHMEMX_H

#include "nvshmem.h"

#if !defined(__CUDACC_RTC__)
#include <stdio.h> /* the NVSHMEMI_ error helpers below */
#include <stdlib.h>
#endif

#if defined(__has_include)
#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#define SYMMETRA_NVSHMEM_HAVE_CUDA_TYPES 1
#endif
/* The driver's types too, as NVSHMEM's nvshmemx.h gives them (its module calls take CUmodule
 * and CUlibrary): its examples use cuMemCreate and CUresult with no include of their own. */
#if __has_include(<cuda.h>)
#include <cuda.h>
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
/* On both sides (the CUDA forms in nvshmem_device.cuh): the multicast address of `ptr` for
 * `team` (NULL: Symmetra keeps NVLink multicast off, and NVSHMEM returns NULL where multicast is
 * not available), and the vendor's version (NVSHMEM_MAJOR_VERSION ...). */
#if !defined(__CUDACC__)
void* nvshmemx_mc_ptr(nvshmem_team_t team, const void* ptr);
void nvshmemx_vendor_get_version_info(int* major, int* minor, int* patch);
#endif
#ifdef __cplusplus
}
#endif

/* Status codes of the nvshmemx_ calls that return one. */
enum nvshmemx_status {
  NVSHMEMX_SUCCESS = 0,
  NVSHMEMX_ERROR_INVALID_VALUE,
  NVSHMEMX_ERROR_OUT_OF_MEMORY,
  NVSHMEMX_ERROR_NOT_SUPPORTED,
  NVSHMEMX_ERROR_SYMMETRY,
  NVSHMEMX_ERROR_GPU_NOT_SELECTED,
  NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED,
  NVSHMEMX_ERROR_INTERNAL,
  NVSHMEMX_ERROR_SENTINEL = 0x7fffffff /* NVSHMEM's: keeps the enum int-sized */
};

/* The error helpers NVSHMEM's headers give programs (NVIDIA's perftest utilities use them): print
 * "file:function:line: message" to stderr, then exit, or set `status` to `err` and jump to `label`
 * (the _JMP forms, where their condition holds). Host code. */
#define NVSHMEMI_ERROR_PRINT(...)                                    \
  do {                                                               \
    fprintf(stderr, "%s:%s:%d: ", __FILE__, __FUNCTION__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                                    \
    fprintf(stderr, "\n");                                           \
  } while (0)
#define NVSHMEMI_ERROR_EXIT(...)       \
  do {                                 \
    NVSHMEMI_ERROR_PRINT(__VA_ARGS__); \
    exit(-1);                          \
  } while (0)
#define NVSHMEMI_WARN_PRINT(...)  \
  do {                            \
    fprintf(stdout, "WARN: ");    \
    fprintf(stdout, __VA_ARGS__); \
    fprintf(stdout, "\n");        \
  } while (0)
#define NVSHMEMI_ERROR_JMP(status, err, label, ...) \
  do {                                              \
    NVSHMEMI_ERROR_PRINT(__VA_ARGS__);              \
    (status) = (err);                               \
    goto label;                                     \
  } while (0)
#define NVSHMEMI_NULL_ERROR_JMP(var, status, err, label, ...)               \
  do {                                                                      \
    if ((var) == NULL) NVSHMEMI_ERROR_JMP(status, err, label, __VA_ARGS__); \
  } while (0)
#define NVSHMEMI_EQ_ERROR_JMP(status, expected, err, label, ...)                     \
  do {                                                                               \
    if ((status) == (expected)) NVSHMEMI_ERROR_JMP(status, err, label, __VA_ARGS__); \
  } while (0)
#define NVSHMEMI_NE_ERROR_JMP(status, expected, err, label, ...)                     \
  do {                                                                               \
    if ((status) != (expected)) NVSHMEMI_ERROR_JMP(status, err, label, __VA_ARGS__); \
  } while (0)
#define NVSHMEMI_NZ_ERROR_JMP(status, err, label, ...)                      \
  do {                                                                      \
    if ((status) != 0) NVSHMEMI_ERROR_JMP(status, err, label, __VA_ARGS__); \
  } while (0)
#define NVSHMEMI_NZ_EXIT(status, ...)                    \
  do {                                                   \
    if ((status) != 0) NVSHMEMI_ERROR_EXIT(__VA_ARGS__); \
  } while (0)

/* nvshmemx_init_attr's ways to join a job (flags). */
enum {
  NVSHMEMX_INIT_THREAD_PES = 1,
  NVSHMEMX_INIT_WITH_MPI_COMM = 1 << 1,
  NVSHMEMX_INIT_WITH_SHMEM = 1 << 2,
  NVSHMEMX_INIT_WITH_UNIQUEID = 1 << 3
};

/* A job's meeting point, made by nvshmemx_get_uniqueid on the PE that will be 0 and passed on by
 * the program (MPI_Bcast, a framework's store) as NVSHMEM's 128 bytes. It holds PE 0's TCP address
 * and a secret that admits only PEs given the id (docs/security.md): pass it on privately. */
#define NVSHMEMX_UNIQUEID_RESERVED_BYTES 124
typedef struct {
  int version;
  char internal[NVSHMEMX_UNIQUEID_RESERVED_BYTES];
} nvshmemx_uniqueid_t;
typedef struct {
  int version;
  nvshmemx_uniqueid_t* id;
  int myrank;
  int nranks;
} nvshmemx_uniqueid_args_t;
typedef struct {
  int version;
  nvshmemx_uniqueid_args_t uid_args;
  int cuda_device_id;
  char content[88];
} nvshmemx_init_args_t;
/* mpi_comm: the address of an MPI_Comm (NVSHMEMX_INIT_WITH_MPI_COMM). */
typedef struct {
  int version;
  void* mpi_comm;
  nvshmemx_init_args_t args;
} nvshmemx_init_attr_t;
#define NVSHMEMX_UNIQUEID_ARGS_INVALID -1
#define NVSHMEMX_UNIQUEID_INITIALIZER               \
  {                                                 \
    (1 << 16) + (int)sizeof(nvshmemx_uniqueid_t), { \
      0                                             \
    }                                               \
  }
#define NVSHMEMX_UNIQUEID_ARGS_INITIALIZER                                                   \
  {                                                                                          \
    (1 << 16) + (int)sizeof(nvshmemx_uniqueid_args_t), NULL, NVSHMEMX_UNIQUEID_ARGS_INVALID, \
        NVSHMEMX_UNIQUEID_ARGS_INVALID                                                       \
  }
#define NVSHMEMX_INIT_ARGS_INITIALIZER                                                 \
  {                                                                                    \
    (1 << 16) + (int)sizeof(nvshmemx_init_args_t), NVSHMEMX_UNIQUEID_ARGS_INITIALIZER, \
        NVSHMEMX_UNIQUEID_ARGS_INVALID, {                                              \
      0                                                                                \
    }                                                                                  \
  }
#define NVSHMEMX_INIT_ATTR_INITIALIZER \
  { (1 << 16) + (int)sizeof(nvshmemx_init_attr_t), NULL, NVSHMEMX_INIT_ARGS_INITIALIZER }

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over the job the attributes name: flags 0 joins as nvshmem_init does; UNIQUEID
 * joins as PE myrank of nranks at the id's meeting point (PE 0 the process that made it);
 * MPI_COMM joins the processes of the communicator, numbered as it numbers them (the program is
 * linked with MPI, Open MPI or MPICH). 0, or nonzero with the reason on stderr. */
int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t* attributes);
/* Not collective: a new meeting point on this host, listening from now on. */
int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t* uniqueid);
int nvshmemx_set_attr_uniqueid_args(const int myrank, const int nranks,
                                    const nvshmemx_uniqueid_t* uniqueid,
                                    nvshmemx_init_attr_t* attr);
int nvshmemx_set_attr_mpi_comm_args(void* mpi_comm, nvshmemx_init_attr_t* nvshmem_attr);
/* A team without a parent: one PE gets an id (not collective; random, never 0 or ~0) and hands it
 * to the others out of band; each of the npes members passes it in config->uniqueid (with
 * NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID) and its own index in [0, npes). Collective over those
 * members only. Their world PEs in index order must be strided (start, start + stride, ..., a
 * positive stride), as Symmetra's teams are: else NVSHMEMX_ERROR_INVALID_VALUE on every member,
 * naming them (docs/nvshmem.md#teams-from-a-unique-id). An id makes one team. */
int nvshmemx_team_get_uniqueid(nvshmemx_team_uniqueid_t* uniqueid);
int nvshmemx_team_init(nvshmem_team_t* team, nvshmem_team_config_t* config, long config_mask,
                       int npes, int pe_idx_in_team);
/* Modules the program loads itself (cuModuleLoad, cuLibraryLoad) that were compiled against
 * nvshmem.h: the library fills their device state now and whenever it changes, until finalize.
 * Compile such a module without -rdc (its state variable then has a name the library can look
 * up); else NVSHMEMX_ERROR_INVALID_VALUE, saying so. Host code, after init. The parameters are
 * CUDA's CUmodule and CUlibrary. */
struct CUmod_st;
struct CUlib_st;
int nvshmemx_cumodule_init(struct CUmod_st* module);
int nvshmemx_cumodule_finalize(struct CUmod_st* module);
int nvshmemx_culibrary_init(struct CUlib_st* library);
int nvshmemx_culibrary_finalize(struct CUlib_st* library);

/* NVSHMEM's host-library-only init and finalize: the same as nvshmemx_init_attr and
 * nvshmem_finalize (Symmetra has no separate device library). */
int nvshmemx_hostlib_init_attr(unsigned int flags, nvshmemx_init_attr_t* attr);
void nvshmemx_hostlib_finalize(void);

/* Registering a local buffer as a source or destination of transfers across hosts: accepted,
 * 0, and nothing else to do, because any memory is a valid source or destination of Symmetra's
 * transfers (the remote path stages what the transport cannot read). Not collective. */
int nvshmemx_buffer_register(void* addr, size_t length);
int nvshmemx_buffer_unregister(void* addr);
void nvshmemx_buffer_unregister_all(void);

/* A PE's own GPU memory made symmetric (GPU backend). Collective over the world, the same size on
 * every PE. buf_ptr is the start of memory made with cuMemCreate (requestedHandleTypes including
 * CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR when PEs are processes) and mapped with cuMemMap;
 * size is a multiple of the CUDA allocation granularity. Returns the symmetric address at which
 * the same memory is mapped too (flags must be 0), or NULL with the reason on stderr on every PE.
 * Unregistering (collective) unmaps it: 0, or nonzero with the reason. */
void* nvshmemx_buffer_register_symmetric(void* buf_ptr, size_t size, int flags);
int nvshmemx_buffer_unregister_symmetric(void* mmap_ptr, size_t size);

#ifdef SYMMETRA_NVSHMEM_HAVE_CUDA_TYPES
/* The library's side of the collective launch below: 0 where this PE runs on the GPU backend
 * (else NVSHMEMX_ERROR_NOT_SUPPORTED, said on stderr), and the message of a failed one. */
int symmetrai_collective_launch_ready(const char* op);
int symmetrai_collective_launch_failed(const char* op, const char* cuda_error, long blocks,
                                       int threads, size_t shared_mem, int fit);

/* The most blocks of `func` with `threads` threads and `smem` bytes that can be resident on the
 * current device at once, in *fit. Inline: the kernel is registered with the program's CUDA
 * runtime, which may not be the library's (nvcc links its own statically). */
static inline cudaError_t symmetrai_resident_blocks(const void* func, int threads, size_t smem,
                                                    int* fit) {
  int dev = 0, sms = 0, per_sm = 0;
  cudaError_t rc = cudaGetDevice(&dev);
  if (rc == cudaSuccess) rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (rc == cudaSuccess)
    rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, threads, smem);
  *fit = per_sm * sms;
  return rc;
}

/* Collective over every PE: launches `func` (a __global__ function) with `args` as
 * cudaLaunchCooperativeKernel does, after checking that every block of the grid can be resident
 * at once, as kernels whose blocks wait for each other (a device barrier) need. A grid that does
 * not fit returns NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED with the largest that does on stderr.
 * Needs the GPU backend. (Several PEs on one GPU share its SMs: the check counts the whole GPU,
 * and their kernels take turns unless MPS runs.) */
static inline int nvshmemx_collective_launch(const void* func, dim3 gridDims, dim3 blockDims,
                                             void** args, size_t sharedMem, cudaStream_t stream) {
  const char* op = "nvshmemx_collective_launch";
  const int threads = (int)(blockDims.x * blockDims.y * blockDims.z);
  const long blocks = (long)gridDims.x * gridDims.y * gridDims.z;
  int fit = 0;
  cudaError_t rc;
  if (symmetrai_collective_launch_ready(op) != 0) return NVSHMEMX_ERROR_NOT_SUPPORTED;
  rc = symmetrai_resident_blocks(func, threads, sharedMem, &fit);
  if (rc == cudaSuccess && blocks <= fit)
    rc = cudaLaunchCooperativeKernel(func, gridDims, blockDims, args, sharedMem, stream);
  else if (rc == cudaSuccess)
    return symmetrai_collective_launch_failed(op, NULL, blocks, threads, sharedMem, fit);
  if (rc != cudaSuccess) {
    cudaGetLastError();
    return symmetrai_collective_launch_failed(op, cudaGetErrorString(rc), blocks, threads,
                                              sharedMem, fit);
  }
  return NVSHMEMX_SUCCESS;
}

/* The most blocks of blockDims threads (and sharedMem bytes) of `func` that can be resident at
 * once, in *gridsize; 0 on success. */
static inline int nvshmemx_collective_launch_query_gridsize(const void* func, dim3 blockDims,
                                                            void** args, size_t sharedMem,
                                                            int* gridsize) {
  const char* op = "nvshmemx_collective_launch_query_gridsize";
  const int threads = (int)(blockDims.x * blockDims.y * blockDims.z);
  cudaError_t rc;
  (void)args;
  if (gridsize == NULL) return NVSHMEMX_ERROR_INVALID_VALUE;
  if (symmetrai_collective_launch_ready(op) != 0) return NVSHMEMX_ERROR_NOT_SUPPORTED;
  rc = symmetrai_resident_blocks(func, threads, sharedMem, gridsize);
  if (rc != cudaSuccess) {
    cudaGetLastError();
    return symmetrai_collective_launch_failed(op, cudaGetErrorString(rc), 0, threads, sharedMem, 0);
  }
  return NVSHMEMX_SUCCESS;
}
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

#include "symmetra/nvshmemx_stream.h"

#endif /* SYMMETRA_NVSHMEMX_H */
