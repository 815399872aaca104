/* NVSHMEM's further RMA forms (nvshmem.h includes this): non-blocking, strided, sized (8 to 128
 * bits) and typed put-with-signal, as X(name, return, parameters, arguments) lists in the form of
 * SYMMETRA_NVSHMEM_BOTH_SIDED. The device forms, with their _warp and _block scopes, are in
 * nvshmem_device_rma.cuh.
 *
 * Semantics, as NVSHMEM's: _nbi returns before the data has moved (complete after
 * nvshmem_quiet; the host forms complete before they return, which the specification allows);
 * iput and iget move nelems elements with strides dst and sst in elements; put_signal puts, then
 * updates the signal word atomically (NVSHMEM_SIGNAL_SET or NVSHMEM_SIGNAL_ADD), the data visible
 * at the target before the signal. Sized forms count elements of BITS bits. */
#ifndef SYMMETRA_NVSHMEM_RMA_H
#define SYMMETRA_NVSHMEM_RMA_H

#define SYMMETRA_NVSHMEM_SIZES(X) X(8) X(16) X(32) X(64) X(128)

#define SYMMETRAI_NVSHMEM_SIGNAL_PARAMS uint64_t *sig_addr, uint64_t signal, int sig_op, int pe
#define SYMMETRAI_NVSHMEM_TYPED_RMA_MORE(NAME, T)                                  \
  X(NAME##_put_nbi, void, (T * dest, const T* src, size_t nelems, int pe),         \
    (dest, src, nelems, pe))                                                       \
  X(NAME##_get_nbi, void, (T * dest, const T* src, size_t nelems, int pe),         \
    (dest, src, nelems, pe))                                                       \
  X(NAME##_iput, void,                                                             \
    (T * dest, const T* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
    (dest, src, dst, sst, nelems, pe))                                             \
  X(NAME##_iget, void,                                                             \
    (T * dest, const T* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
    (dest, src, dst, sst, nelems, pe))                                             \
  X(NAME##_put_signal, void,                                                       \
    (T * dest, const T* src, size_t nelems, SYMMETRAI_NVSHMEM_SIGNAL_PARAMS),      \
    (dest, src, nelems, sig_addr, signal, sig_op, pe))                             \
  X(NAME##_put_signal_nbi, void,                                                   \
    (T * dest, const T* src, size_t nelems, SYMMETRAI_NVSHMEM_SIGNAL_PARAMS),      \
    (dest, src, nelems, sig_addr, signal, sig_op, pe))
#define SYMMETRAI_NVSHMEM_SIZED_RMA(BITS)                                               \
  X(put##BITS, void, (void* dest, const void* src, size_t nelems, int pe),              \
    (dest, src, nelems, pe))                                                            \
  X(get##BITS, void, (void* dest, const void* src, size_t nelems, int pe),              \
    (dest, src, nelems, pe))                                                            \
  X(put##BITS##_nbi, void, (void* dest, const void* src, size_t nelems, int pe),        \
    (dest, src, nelems, pe))                                                            \
  X(get##BITS##_nbi, void, (void* dest, const void* src, size_t nelems, int pe),        \
    (dest, src, nelems, pe))                                                            \
  X(iput##BITS, void,                                                                   \
    (void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
    (dest, src, dst, sst, nelems, pe))                                                  \
  X(iget##BITS, void,                                                                   \
    (void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
    (dest, src, dst, sst, nelems, pe))                                                  \
  X(put##BITS##_signal, void,                                                           \
    (void* dest, const void* src, size_t nelems, SYMMETRAI_NVSHMEM_SIGNAL_PARAMS),      \
    (dest, src, nelems, sig_addr, signal, sig_op, pe))                                  \
  X(put##BITS##_signal_nbi, void,                                                       \
    (void* dest, const void* src, size_t nelems, SYMMETRAI_NVSHMEM_SIGNAL_PARAMS),      \
    (dest, src, nelems, sig_addr, signal, sig_op, pe))
#define SYMMETRA_NVSHMEM_RMA_BOTH_SIDED                                                            \
  X(putmem_nbi, void, (void* dest, const void* src, size_t bytes, int pe), (dest, src, bytes, pe)) \
  X(getmem_nbi, void, (void* dest, const void* src, size_t bytes, int pe), (dest, src, bytes, pe)) \
  X(putmem_signal_nbi, void,                                                                       \
    (void* dest, const void* src, size_t bytes, SYMMETRAI_NVSHMEM_SIGNAL_PARAMS),                  \
    (dest, src, bytes, sig_addr, signal, sig_op, pe))                                              \
  SYMMETRA_NVSHMEM_RMA_TYPES(SYMMETRAI_NVSHMEM_TYPED_RMA_MORE)                                     \
  SYMMETRA_NVSHMEM_SIZES(SYMMETRAI_NVSHMEM_SIZED_RMA)

#endif /* SYMMETRA_NVSHMEM_RMA_H */
