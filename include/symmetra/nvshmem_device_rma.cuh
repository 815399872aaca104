// The CUDA forms of nvshmem_rma.h's calls, and the _warp and _block scopes of every put, get and
// put-with-signal (nvshmem.h includes this under nvcc). On the device they run Symmetra's device
// API (symmetra/device/rma.hpp, signal.hpp) with a ThreadGroup, WarpGroup or BlockGroup on this
// unit's constant copy of the PE's device state; on the host, the library's host forms.
// Threads: every thread of the scope calls with the same arguments. Ordering: as nvshmem_rma.h.
#pragma once

namespace symmetra::nvshmem_detail {

// The element of the sized forms: BITS bits, copied whole.
template <int kBits>
struct Sized {
  using type = unsigned char;
};
template <>
struct Sized<16> {
  using type = unsigned short;
};
template <>
struct Sized<32> {
  using type = unsigned int;
};
template <>
struct Sized<64> {
  using type = unsigned long long;
};
struct alignas(16) Word128 {
  unsigned long long lo, hi;
};
template <>
struct Sized<128> {
  using type = Word128;
};

}  // namespace symmetra::nvshmem_detail

#define SYMMETRAI_DEV symmetra::device
#define SYMMETRAI_SIGOP symmetra::nvshmem_detail::signal_op(sig_op)

extern "C" {

// Thread forms on both sides.
__host__ __device__ inline void nvshmem_putmem_nbi(void* dest, const void* src, size_t bytes,
                                                   int pe) {
  SYMMETRAI_EITHER(
      SYMMETRAI_DEV::putmem_nbi(SYMMETRAI_THREAD, SYMMETRAI_STATE, dest, src, bytes, pe),
      symmetrai_host_putmem_nbi(dest, src, bytes, pe));
}
__host__ __device__ inline void nvshmem_getmem_nbi(void* dest, const void* src, size_t bytes,
                                                   int pe) {
  SYMMETRAI_EITHER(
      SYMMETRAI_DEV::getmem_nbi(SYMMETRAI_THREAD, SYMMETRAI_STATE, dest, src, bytes, pe),
      symmetrai_host_getmem_nbi(dest, src, bytes, pe));
}
__host__ __device__ inline void nvshmem_putmem_signal_nbi(void* dest, const void* src, size_t bytes,
                                                          uint64_t* sig_addr, uint64_t signal,
                                                          int sig_op, int pe) {
  SYMMETRAI_EITHER(
      SYMMETRAI_DEV::putmem_signal_nbi(SYMMETRAI_THREAD, SYMMETRAI_STATE, dest, src, bytes,
                                       sig_addr, signal, SYMMETRAI_SIGOP, pe),
      symmetrai_host_putmem_signal_nbi(dest, src, bytes, sig_addr, signal, sig_op, pe));
}

// Elements of size SIZE (typed forms: sizeof(T); sized forms: BITS / 8), as bytes; strided ones
// as whole elements of type E. NAME is the form's name less nvshmem_ (typed: int_put, ...).
#define SYMMETRAI_THREAD_FORMS(PUT, GET, T, E, SIZE)                                               \
  __host__ __device__ inline void nvshmem_##PUT##_nbi(T* dest, const T* src, size_t nelems,        \
                                                      int pe) {                                    \
    SYMMETRAI_EITHER(SYMMETRAI_DEV::putmem_nbi(SYMMETRAI_THREAD, SYMMETRAI_STATE, dest, src,       \
                                               nelems*(SIZE), pe),                                 \
                     symmetrai_host_##PUT##_nbi(dest, src, nelems, pe));                           \
  }                                                                                                \
  __host__ __device__ inline void nvshmem_##GET##_nbi(T* dest, const T* src, size_t nelems,        \
                                                      int pe) {                                    \
    SYMMETRAI_EITHER(SYMMETRAI_DEV::getmem_nbi(SYMMETRAI_THREAD, SYMMETRAI_STATE, dest, src,       \
                                               nelems*(SIZE), pe),                                 \
                     symmetrai_host_##GET##_nbi(dest, src, nelems, pe));                           \
  }                                                                                                \
  __host__ __device__ inline void nvshmem_##PUT##_signal(T* dest, const T* src, size_t nelems,     \
                                                         uint64_t* sig_addr, uint64_t signal,      \
                                                         int sig_op, int pe) {                     \
    SYMMETRAI_EITHER(                                                                              \
        SYMMETRAI_DEV::putmem_signal(SYMMETRAI_THREAD, SYMMETRAI_STATE, dest, src, nelems*(SIZE),  \
                                     sig_addr, signal, SYMMETRAI_SIGOP, pe),                       \
        symmetrai_host_##PUT##_signal(dest, src, nelems, sig_addr, signal, sig_op, pe));           \
  }                                                                                                \
  __host__ __device__ inline void nvshmem_##PUT##_signal_nbi(T* dest, const T* src, size_t nelems, \
                                                             uint64_t* sig_addr, uint64_t signal,  \
                                                             int sig_op, int pe) {                 \
    SYMMETRAI_EITHER(                                                                              \
        SYMMETRAI_DEV::putmem_signal_nbi(SYMMETRAI_THREAD, SYMMETRAI_STATE, dest, src,             \
                                         nelems*(SIZE), sig_addr, signal, SYMMETRAI_SIGOP, pe),    \
        symmetrai_host_##PUT##_signal_nbi(dest, src, nelems, sig_addr, signal, sig_op, pe));       \
  }
#define SYMMETRAI_STRIDED_FORMS(IPUT, IGET, T, E)                                                  \
  __host__ __device__ inline void nvshmem_##IPUT(T* dest, const T* src, ptrdiff_t dst,             \
                                                 ptrdiff_t sst, size_t nelems, int pe) {           \
    SYMMETRAI_EITHER(SYMMETRAI_DEV::iput(SYMMETRAI_THREAD, SYMMETRAI_STATE, static_cast<E*>(dest), \
                                         static_cast<const E*>(src), dst, sst, nelems, pe),        \
                     symmetrai_host_##IPUT(dest, src, dst, sst, nelems, pe));                      \
  }                                                                                                \
  __host__ __device__ inline void nvshmem_##IGET(T* dest, const T* src, ptrdiff_t dst,             \
                                                 ptrdiff_t sst, size_t nelems, int pe) {           \
    SYMMETRAI_EITHER(SYMMETRAI_DEV::iget(SYMMETRAI_THREAD, SYMMETRAI_STATE, static_cast<E*>(dest), \
                                         static_cast<const E*>(src), dst, sst, nelems, pe),        \
                     symmetrai_host_##IGET(dest, src, dst, sst, nelems, pe));                      \
  }

// The _warp and _block scopes (device only): put, get, their _nbi forms, put-with-signal.
#define SYMMETRAI_SCOPE_FORMS(PUT, GET, T, SIZE, SCOPE, GROUP)                                     \
  __device__ inline void nvshmemx_##PUT##_##SCOPE(T* dest, const T* src, size_t nelems, int pe) {  \
    SYMMETRAI_DEV::putmem(GROUP, SYMMETRAI_STATE, dest, src, nelems*(SIZE), pe);                   \
  }                                                                                                \
  __device__ inline void nvshmemx_##GET##_##SCOPE(T* dest, const T* src, size_t nelems, int pe) {  \
    SYMMETRAI_DEV::getmem(GROUP, SYMMETRAI_STATE, dest, src, nelems*(SIZE), pe);                   \
  }                                                                                                \
  __device__ inline void nvshmemx_##PUT##_nbi_##SCOPE(T* dest, const T* src, size_t nelems,        \
                                                      int pe) {                                    \
    SYMMETRAI_DEV::putmem_nbi(GROUP, SYMMETRAI_STATE, dest, src, nelems*(SIZE), pe);               \
  }                                                                                                \
  __device__ inline void nvshmemx_##GET##_nbi_##SCOPE(T* dest, const T* src, size_t nelems,        \
                                                      int pe) {                                    \
    SYMMETRAI_DEV::getmem_nbi(GROUP, SYMMETRAI_STATE, dest, src, nelems*(SIZE), pe);               \
  }                                                                                                \
  __device__ inline void nvshmemx_##PUT##_signal_##SCOPE(T* dest, const T* src, size_t nelems,     \
                                                         uint64_t* sig_addr, uint64_t signal,      \
                                                         int sig_op, int pe) {                     \
    SYMMETRAI_DEV::putmem_signal(GROUP, SYMMETRAI_STATE, dest, src, nelems*(SIZE), sig_addr,       \
                                 signal, SYMMETRAI_SIGOP, pe);                                     \
  }                                                                                                \
  __device__ inline void nvshmemx_##PUT##_signal_nbi_##SCOPE(T* dest, const T* src, size_t nelems, \
                                                             uint64_t* sig_addr, uint64_t signal,  \
                                                             int sig_op, int pe) {                 \
    SYMMETRAI_DEV::putmem_signal_nbi(GROUP, SYMMETRAI_STATE, dest, src, nelems*(SIZE), sig_addr,   \
                                     signal, SYMMETRAI_SIGOP, pe);                                 \
  }
#define SYMMETRAI_STRIDED_SCOPE(IPUT, IGET, T, E, SCOPE, GROUP)                                    \
  __device__ inline void nvshmemx_##IPUT##_##SCOPE(T* dest, const T* src, ptrdiff_t dst,           \
                                                   ptrdiff_t sst, size_t nelems, int pe) {         \
    SYMMETRAI_DEV::iput(GROUP, SYMMETRAI_STATE, static_cast<E*>(dest), static_cast<const E*>(src), \
                        dst, sst, nelems, pe);                                                     \
  }                                                                                                \
  __device__ inline void nvshmemx_##IGET##_##SCOPE(T* dest, const T* src, ptrdiff_t dst,           \
                                                   ptrdiff_t sst, size_t nelems, int pe) {         \
    SYMMETRAI_DEV::iget(GROUP, SYMMETRAI_STATE, static_cast<E*>(dest), static_cast<const E*>(src), \
                        dst, sst, nelems, pe);                                                     \
  }
#define SYMMETRAI_ALL_FORMS(PUT, GET, IPUT, IGET, T, E, SIZE)      \
  SYMMETRAI_THREAD_FORMS(PUT, GET, T, E, SIZE)                     \
  SYMMETRAI_STRIDED_FORMS(IPUT, IGET, T, E)                        \
  SYMMETRAI_SCOPE_FORMS(PUT, GET, T, SIZE, warp, SYMMETRAI_WARP)   \
  SYMMETRAI_SCOPE_FORMS(PUT, GET, T, SIZE, block, SYMMETRAI_BLOCK) \
  SYMMETRAI_STRIDED_SCOPE(IPUT, IGET, T, E, warp, SYMMETRAI_WARP)  \
  SYMMETRAI_STRIDED_SCOPE(IPUT, IGET, T, E, block, SYMMETRAI_BLOCK)

#define SYMMETRAI_TYPED_FORMS(NAME, T) \
  SYMMETRAI_ALL_FORMS(NAME##_put, NAME##_get, NAME##_iput, NAME##_iget, T, T, sizeof(T))
SYMMETRA_NVSHMEM_RMA_TYPES(SYMMETRAI_TYPED_FORMS)
#define SYMMETRAI_SIZED_FORMS(BITS)                                                             \
  SYMMETRAI_ALL_FORMS(put##BITS, get##BITS, iput##BITS, iget##BITS, void,                       \
                      symmetra::nvshmem_detail::Sized<BITS>::type, (BITS) / 8)                  \
  __host__ __device__ inline void nvshmem_put##BITS(void* dest, const void* src, size_t nelems, \
                                                    int pe) {                                   \
    SYMMETRAI_EITHER(SYMMETRAI_DEV::putmem(SYMMETRAI_THREAD, SYMMETRAI_STATE, dest, src,        \
                                           nelems*((BITS) / 8), pe),                            \
                     symmetrai_host_put##BITS(dest, src, nelems, pe));                          \
  }                                                                                             \
  __host__ __device__ inline void nvshmem_get##BITS(void* dest, const void* src, size_t nelems, \
                                                    int pe) {                                   \
    SYMMETRAI_EITHER(SYMMETRAI_DEV::getmem(SYMMETRAI_THREAD, SYMMETRAI_STATE, dest, src,        \
                                           nelems*((BITS) / 8), pe),                            \
                     symmetrai_host_get##BITS(dest, src, nelems, pe));                          \
  }
SYMMETRA_NVSHMEM_SIZES(SYMMETRAI_SIZED_FORMS)
// The byte forms' scopes (putmem's thread forms are in nvshmem_device.cuh).
SYMMETRAI_SCOPE_FORMS(putmem, getmem, void, 1, warp, SYMMETRAI_WARP)
SYMMETRAI_SCOPE_FORMS(putmem, getmem, void, 1, block, SYMMETRAI_BLOCK)
#undef SYMMETRAI_SIZED_FORMS
#undef SYMMETRAI_TYPED_FORMS
#undef SYMMETRAI_ALL_FORMS
#undef SYMMETRAI_SCOPE_FORMS
#undef SYMMETRAI_STRIDED_SCOPE
#undef SYMMETRAI_STRIDED_FORMS
#undef SYMMETRAI_THREAD_FORMS
#undef SYMMETRAI_SIGOP
#undef SYMMETRAI_DEV

}  // extern "C"
