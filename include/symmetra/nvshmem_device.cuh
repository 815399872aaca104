// The CUDA forms of nvshmem.h's both-sided calls (nvshmem.h includes this under nvcc).
//
// Each translation unit keeps its own copy of the PE's device state in __constant__ memory:
// without -rdc every translation unit is a module of its own, and a variable of one module is not
// another's. A static object registers the copy's updater with the library before main;
// nvshmem_init fills every registered copy, and the library fills them again when the state
// changes (the heap grew). On the device each call reads its fields from the
// constant bank, so a context-free call costs what the same call with a context argument does.
#pragma once

#include <cuda_runtime.h>

#include "symmetra/device.hpp"

static __constant__ symmetra::device::Context symmetrai_nvshmem_state;

namespace {
int symmetrai_update_state(const void* state, size_t bytes) {
  if (bytes != sizeof(symmetra::device::Context)) return static_cast<int>(cudaErrorInvalidValue);
  return static_cast<int>(cudaMemcpyToSymbol(symmetrai_nvshmem_state, state, bytes));
}
struct SymmetraiModule {
  SymmetraiModule() { symmetrai_register_module(&symmetrai_update_state); }
};
const SymmetraiModule symmetrai_module;
}  // namespace

namespace symmetra::nvshmem_detail {
// NVSHMEM's team ids to Symmetra's team handles: NODE is the shared team.
__host__ __device__ inline int team_handle(nvshmem_team_t team) {
  return SYMMETRAI_TEAM_HANDLE(team);
}
__host__ __device__ inline SignalOp signal_op(int sig_op) {
  return sig_op == NVSHMEM_SIGNAL_SET ? SignalOp::kSet : SignalOp::kAdd;
}
}  // namespace symmetra::nvshmem_detail

// NVSHMEM's atomics: unordered (relaxed) as NVSHMEM's and OpenSHMEM's are, completed by quiet.
namespace symmetra::nvshmem_detail {
template <AmoOp A, class T>
__device__ inline T amo(const device::Context& c, T* dest, T value, T cond, int pe) {
  return device::atomic_unordered<A>(c, "nvshmem atomic", dest, value, cond, pe);
}
template <class T>
__device__ inline T amo_fetch(const device::Context& c, const T* src, int pe) {
  return amo<AmoOp::kFetch>(c, const_cast<T*>(src), T{}, T{}, pe);
}
template <class T>
__device__ inline void amo_set(const device::Context& c, T* dest, T value, int pe) {
  amo<AmoOp::kSet>(c, dest, value, T{}, pe);
}
template <class T>
__device__ inline T amo_swap(const device::Context& c, T* dest, T value, int pe) {
  return amo<AmoOp::kSwap>(c, dest, value, T{}, pe);
}
template <class T>
__device__ inline T amo_compare_swap(const device::Context& c, T* dest, T cond, T value, int pe) {
  return amo<AmoOp::kCompareSwap>(c, dest, value, cond, pe);
}
template <class T>
__device__ inline T amo_fetch_inc(const device::Context& c, T* dest, int pe) {
  return amo<AmoOp::kFetchAdd>(c, dest, T(1), T{}, pe);
}
template <class T>
__device__ inline void amo_inc(const device::Context& c, T* dest, int pe) {
  amo<AmoOp::kFetchAdd>(c, dest, T(1), T{}, pe);
}
#define SYMMETRAI_AMO_VALUE(what, OP)                                                        \
  template <class T>                                                                         \
  __device__ inline T amo_fetch_##what(const device::Context& c, T* dest, T value, int pe) { \
    return amo<AmoOp::OP>(c, dest, value, T{}, pe);                                          \
  }                                                                                          \
  template <class T>                                                                         \
  __device__ inline void amo_##what(const device::Context& c, T* dest, T value, int pe) {    \
    amo<AmoOp::OP>(c, dest, value, T{}, pe);                                                 \
  }
SYMMETRAI_AMO_VALUE(add, kFetchAdd)
SYMMETRAI_AMO_VALUE(and, kFetchAnd)
SYMMETRAI_AMO_VALUE(or, kFetchOr)
SYMMETRAI_AMO_VALUE(xor, kFetchXor)
#undef SYMMETRAI_AMO_VALUE
}  // namespace symmetra::nvshmem_detail

#define SYMMETRAI_STATE symmetrai_nvshmem_state
#define SYMMETRAI_THREAD \
  symmetra::device::ThreadGroup {}

extern "C" {

__host__ __device__ inline int nvshmem_my_pe(void) {
#ifdef __CUDA_ARCH__
  return SYMMETRAI_STATE.my_pe;
#else
  return symmetrai_host_my_pe();
#endif
}
__host__ __device__ inline int nvshmem_n_pes(void) {
#ifdef __CUDA_ARCH__
  return SYMMETRAI_STATE.n_pes;
#else
  return symmetrai_host_n_pes();
#endif
}
// -1 where this PE is not a member, or the team is not valid.
__host__ __device__ inline int nvshmem_team_my_pe(nvshmem_team_t team) {
#ifdef __CUDA_ARCH__
  const int h = symmetra::nvshmem_detail::team_handle(team);
  return h < 0 || h >= symmetra::device::kMaxTeams ? -1 : SYMMETRAI_STATE.teams[h].my_rank;
#else
  return symmetrai_host_team_my_pe(team);
#endif
}
__host__ __device__ inline int nvshmem_team_n_pes(nvshmem_team_t team) {
#ifdef __CUDA_ARCH__
  const int h = symmetra::nvshmem_detail::team_handle(team);
  return h < 0 || h >= symmetra::device::kMaxTeams ? -1 : SYMMETRAI_STATE.teams[h].size;
#else
  return symmetrai_host_team_n_pes(team);
#endif
}
__host__ __device__ inline void* nvshmem_ptr(const void* dest, int pe) {
#ifdef __CUDA_ARCH__
  return symmetra::device::ptr(SYMMETRAI_STATE, const_cast<void*>(dest), pe);
#else
  return symmetrai_host_ptr(dest, pe);
#endif
}
__host__ __device__ inline void nvshmem_quiet(void) {
#ifdef __CUDA_ARCH__
  symmetra::device::quiet(SYMMETRAI_STATE);
#else
  symmetrai_host_quiet();
#endif
}
__host__ __device__ inline void nvshmem_fence(void) {
#ifdef __CUDA_ARCH__
  symmetra::device::fence(SYMMETRAI_STATE);
#else
  symmetrai_host_fence();
#endif
}
// On the device: one thread of each PE calls it.
__host__ __device__ inline void nvshmem_barrier_all(void) {
#ifdef __CUDA_ARCH__
  symmetra::device::barrier_all(SYMMETRAI_THREAD, SYMMETRAI_STATE);
#else
  symmetrai_host_barrier_all();
#endif
}
__host__ __device__ inline void nvshmem_sync_all(void) {
#ifdef __CUDA_ARCH__
  symmetra::device::sync_all(SYMMETRAI_THREAD, SYMMETRAI_STATE);
#else
  symmetrai_host_sync_all();
#endif
}
__host__ __device__ inline void nvshmem_putmem(void* dest, const void* src, size_t bytes, int pe) {
#ifdef __CUDA_ARCH__
  symmetra::device::putmem(SYMMETRAI_THREAD, SYMMETRAI_STATE, dest, src, bytes, pe);
#else
  symmetrai_host_putmem(dest, src, bytes, pe);
#endif
}
__host__ __device__ inline void nvshmem_getmem(void* dest, const void* src, size_t bytes, int pe) {
#ifdef __CUDA_ARCH__
  symmetra::device::getmem(SYMMETRAI_THREAD, SYMMETRAI_STATE, dest, src, bytes, pe);
#else
  symmetrai_host_getmem(dest, src, bytes, pe);
#endif
}

__host__ __device__ inline void nvshmem_putmem_signal(void* dest, const void* src, size_t bytes,
                                                      uint64_t* sig_addr, uint64_t signal,
                                                      int sig_op, int pe) {
#ifdef __CUDA_ARCH__
  symmetra::device::putmem_signal(SYMMETRAI_THREAD, SYMMETRAI_STATE, dest, src, bytes, sig_addr,
                                  signal, symmetra::nvshmem_detail::signal_op(sig_op), pe);
#else
  symmetrai_host_putmem_signal(dest, src, bytes, sig_addr, signal, sig_op, pe);
#endif
}
__host__ __device__ inline void nvshmemx_signal_op(uint64_t* sig_addr, uint64_t signal, int sig_op,
                                                   int pe) {
#ifdef __CUDA_ARCH__
  if (sig_op == NVSHMEM_SIGNAL_SET)
    symmetra::device::atomic_set(SYMMETRAI_STATE, sig_addr, signal, pe);
  else
    symmetra::device::atomic_add(SYMMETRAI_STATE, sig_addr, signal, pe);
#else
  symmetrai_host_signal_op(sig_addr, signal, sig_op, pe);
#endif
}
__host__ __device__ inline uint64_t nvshmem_signal_fetch(const uint64_t* sig_addr) {
#ifdef __CUDA_ARCH__
  return symmetra::device::signal_fetch(SYMMETRAI_STATE, sig_addr);
#else
  return symmetrai_host_signal_fetch(sig_addr);
#endif
}
__host__ __device__ inline uint64_t nvshmem_signal_wait_until(uint64_t* sig_addr, int cmp,
                                                              uint64_t cmp_value) {
#ifdef __CUDA_ARCH__
  return symmetra::device::signal_wait_until(
      SYMMETRAI_STATE, sig_addr, static_cast<symmetra::Cmp>(SYMMETRAI_CMP(cmp)), cmp_value);
#else
  return symmetrai_host_signal_wait_until(sig_addr, cmp, cmp_value);
#endif
}

__host__ __device__ inline void nvshmem_global_exit(int status) {
#ifdef __CUDA_ARCH__
  printf("[pe %d] nvshmem_global_exit(%d) in a kernel: the kernel stops here\n",
         SYMMETRAI_STATE.my_pe, status);
  __trap();
#else
  symmetrai_host_global_exit(status);
#endif
}
__host__ __device__ inline void* nvshmemx_mc_ptr(nvshmem_team_t team, const void* ptr) {
#ifdef __CUDA_ARCH__
  (void)team;
  (void)ptr;
  return nullptr;
#else
  return symmetrai_host_mc_ptr(team, ptr);
#endif
}
__host__ __device__ inline void nvshmemx_vendor_get_version_info(int* major, int* minor,
                                                                 int* patch) {
#ifdef __CUDA_ARCH__
  *major = NVSHMEM_MAJOR_VERSION;
  *minor = NVSHMEM_MINOR_VERSION;
  *patch = NVSHMEM_PATCH_VERSION;
#else
  symmetrai_host_vendor_get_version_info(major, minor, patch);
#endif
}

// The typed calls: the same signatures in both passes of nvcc, the bodies of each side.
#ifdef __CUDA_ARCH__
#define SYMMETRAI_P(NAME) symmetra::device::p(SYMMETRAI_STATE, dest, value, pe)
#define SYMMETRAI_G(NAME) symmetra::device::g_unordered(SYMMETRAI_STATE, src, pe)
#define SYMMETRAI_PUT(NAME) \
  symmetra::device::put(SYMMETRAI_THREAD, SYMMETRAI_STATE, dest, src, nelems, pe)
#define SYMMETRAI_GET(NAME) \
  symmetra::device::get(SYMMETRAI_THREAD, SYMMETRAI_STATE, dest, src, nelems, pe)
#else
#define SYMMETRAI_P(NAME) symmetrai_host_##NAME##_p(dest, value, pe)
#define SYMMETRAI_G(NAME) symmetrai_host_##NAME##_g(src, pe)
#define SYMMETRAI_PUT(NAME) symmetrai_host_##NAME##_put(dest, src, nelems, pe)
#define SYMMETRAI_GET(NAME) symmetrai_host_##NAME##_get(dest, src, nelems, pe)
#endif
#define SYMMETRAI_TYPED(NAME, T)                                                             \
  __host__ __device__ inline void nvshmem_##NAME##_p(T* dest, T value, int pe) {             \
    SYMMETRAI_P(NAME);                                                                       \
  }                                                                                          \
  __host__ __device__ inline T nvshmem_##NAME##_g(const T* src, int pe) {                    \
    return SYMMETRAI_G(NAME);                                                                \
  }                                                                                          \
  __host__ __device__ inline void nvshmem_##NAME##_put(T* dest, const T* src, size_t nelems, \
                                                       int pe) {                             \
    SYMMETRAI_PUT(NAME);                                                                     \
  }                                                                                          \
  __host__ __device__ inline void nvshmem_##NAME##_get(T* dest, const T* src, size_t nelems, \
                                                       int pe) {                             \
    SYMMETRAI_GET(NAME);                                                                     \
  }
SYMMETRA_NVSHMEM_RMA_TYPES(SYMMETRAI_TYPED)
#undef SYMMETRAI_TYPED

// Atomics, wait and test: each call is X(name, return, parameters, arguments) in nvshmem.h's
// lists; the device side runs symmetra::device::atomic_<what> (the same name), wait_until, test.
#ifdef __CUDA_ARCH__
#define SYMMETRAI_AMO_BODY(NAME, what, args) \
  return symmetra::nvshmem_detail::amo_##what(SYMMETRAI_STATE, SYMMETRAI_UNPAREN args)
#else
#define SYMMETRAI_AMO_BODY(NAME, what, args) return symmetrai_host_##NAME##_atomic_##what args
#endif
#define SYMMETRAI_UNPAREN(...) __VA_ARGS__
#define SYMMETRAI_AMO1(NAME, what, ret, params, args)                    \
  __host__ __device__ inline ret nvshmem_##NAME##_atomic_##what params { \
    SYMMETRAI_AMO_BODY(NAME, what, args);                                \
  }
#define SYMMETRAI_AMO(NAME, T)                                                       \
  SYMMETRAI_AMO1(NAME, fetch_inc, T, (T * dest, int pe), (dest, pe))                 \
  SYMMETRAI_AMO1(NAME, inc, void, (T * dest, int pe), (dest, pe))                    \
  SYMMETRAI_AMO1(NAME, fetch_add, T, (T * dest, T value, int pe), (dest, value, pe)) \
  SYMMETRAI_AMO1(NAME, add, void, (T * dest, T value, int pe), (dest, value, pe))    \
  SYMMETRAI_AMO1(NAME, compare_swap, T, (T * dest, T cond, T value, int pe),         \
                 (dest, cond, value, pe))
#define SYMMETRAI_AMO_EXTENDED(NAME, T)                                           \
  SYMMETRAI_AMO1(NAME, fetch, T, (const T* src, int pe), (src, pe))               \
  SYMMETRAI_AMO1(NAME, set, void, (T * dest, T value, int pe), (dest, value, pe)) \
  SYMMETRAI_AMO1(NAME, swap, T, (T * dest, T value, int pe), (dest, value, pe))
#define SYMMETRAI_AMO_BITWISE(NAME, T)                                               \
  SYMMETRAI_AMO1(NAME, fetch_and, T, (T * dest, T value, int pe), (dest, value, pe)) \
  SYMMETRAI_AMO1(NAME, and, void, (T * dest, T value, int pe), (dest, value, pe))    \
  SYMMETRAI_AMO1(NAME, fetch_or, T, (T * dest, T value, int pe), (dest, value, pe))  \
  SYMMETRAI_AMO1(NAME, or, void, (T * dest, T value, int pe), (dest, value, pe))     \
  SYMMETRAI_AMO1(NAME, fetch_xor, T, (T * dest, T value, int pe), (dest, value, pe)) \
  SYMMETRAI_AMO1(NAME, xor, void, (T * dest, T value, int pe), (dest, value, pe))
SYMMETRA_NVSHMEM_AMO_TYPES(SYMMETRAI_AMO)
SYMMETRA_NVSHMEM_AMO_TYPES(SYMMETRAI_AMO_EXTENDED)
SYMMETRAI_AMO_EXTENDED(float, float)
SYMMETRAI_AMO_EXTENDED(double, double)
SYMMETRA_NVSHMEM_AMO_BITWISE_TYPES(SYMMETRAI_AMO_BITWISE)
#undef SYMMETRAI_AMO
#undef SYMMETRAI_AMO_EXTENDED
#undef SYMMETRAI_AMO_BITWISE
#undef SYMMETRAI_AMO1
#undef SYMMETRAI_AMO_BODY

#ifdef __CUDA_ARCH__
#define SYMMETRAI_WAIT(NAME, T)                                                                \
  __host__ __device__ inline void nvshmem_##NAME##_wait_until(T* ivar, int cmp, T cmp_value) { \
    symmetra::device::wait_until(SYMMETRAI_STATE, static_cast<const T*>(ivar),                 \
                                 static_cast<symmetra::Cmp>(SYMMETRAI_CMP(cmp)), cmp_value);   \
  }                                                                                            \
  __host__ __device__ inline int nvshmem_##NAME##_test(T* ivar, int cmp, T cmp_value) {        \
    return symmetra::device::test(SYMMETRAI_STATE, static_cast<const T*>(ivar),                \
                                  static_cast<symmetra::Cmp>(SYMMETRAI_CMP(cmp)), cmp_value)   \
               ? 1                                                                             \
               : 0;                                                                            \
  }
#else
#define SYMMETRAI_WAIT(NAME, T)                                                                \
  __host__ __device__ inline void nvshmem_##NAME##_wait_until(T* ivar, int cmp, T cmp_value) { \
    symmetrai_host_##NAME##_wait_until(ivar, cmp, cmp_value);                                  \
  }                                                                                            \
  __host__ __device__ inline int nvshmem_##NAME##_test(T* ivar, int cmp, T cmp_value) {        \
    return symmetrai_host_##NAME##_test(ivar, cmp, cmp_value);                                 \
  }
#endif
SYMMETRA_NVSHMEM_WAIT_TYPES(SYMMETRAI_WAIT)
#undef SYMMETRAI_WAIT
#undef SYMMETRAI_P
#undef SYMMETRAI_G
#undef SYMMETRAI_PUT
#undef SYMMETRAI_GET

}  // extern "C"
