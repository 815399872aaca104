/* NVSHMEM's stream-ordered RMA forms beyond putmem and getmem (nvshmemx.h includes this after
 * cudaStream_t): typed, sized, non-blocking, strided and put-with-signal, the signal operation
 * and the signal wait, as lists for the library to define them from.
 *
 * Semantics: enqueued on `stream` in stream order, complete when the stream reaches them, and
 * capturable in CUDA graphs, except where a form needs a value on the host: g_on_stream returns
 * it, so it synchronizes the stream first; p_on_stream of a 64-bit type is a stream memory write
 * of the value, of a narrower type it synchronizes the stream and puts; iput and iget on a
 * stream synchronize it and run the host form. _nbi forms are the blocking ones. The typed
 * waits (wait_until, wait_until_all, wait_until_all_vector) hold the stream in a one-thread
 * kernel bounded by SYMMETRA_TIMEOUT_S; their status and cmp_values arrays are read by the GPU
 * (device or mapped memory), as NVSHMEM's are. */
#ifndef SYMMETRA_NVSHMEMX_STREAM_H
#define SYMMETRA_NVSHMEMX_STREAM_H

#define SYMMETRAI_STREAM_SIGNAL_PARAMS uint64_t *sig_addr, uint64_t signal, int sig_op, int pe
/* X(name, return, parameters): parameters end with the stream. */
#define SYMMETRAI_NVSHMEMX_TYPED_STREAM(NAME, T)                                                  \
  X(NAME##_p_on_stream, void, (T * dest, const T value, int pe, cudaStream_t stream))             \
  X(NAME##_g_on_stream, T, (const T* src, int pe, cudaStream_t stream))                           \
  X(NAME##_put_on_stream, void,                                                                   \
    (T * dest, const T* src, size_t nelems, int pe, cudaStream_t stream))                         \
  X(NAME##_put_nbi_on_stream, void,                                                               \
    (T * dest, const T* src, size_t nelems, int pe, cudaStream_t stream))                         \
  X(NAME##_get_on_stream, void,                                                                   \
    (T * dest, const T* src, size_t nelems, int pe, cudaStream_t stream))                         \
  X(NAME##_get_nbi_on_stream, void,                                                               \
    (T * dest, const T* src, size_t nelems, int pe, cudaStream_t stream))                         \
  X(NAME##_iput_on_stream, void,                                                                  \
    (T * dest, const T* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe,                 \
     cudaStream_t stream))                                                                        \
  X(NAME##_iget_on_stream, void,                                                                  \
    (T * dest, const T* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe,                 \
     cudaStream_t stream))                                                                        \
  X(NAME##_put_signal_on_stream, void,                                                            \
    (T * dest, const T* src, size_t nelems, SYMMETRAI_STREAM_SIGNAL_PARAMS, cudaStream_t stream)) \
  X(NAME##_put_signal_nbi_on_stream, void,                                                        \
    (T * dest, const T* src, size_t nelems, SYMMETRAI_STREAM_SIGNAL_PARAMS, cudaStream_t stream))
#define SYMMETRAI_NVSHMEMX_SIZED_STREAM(BITS)                                          \
  X(put##BITS##_on_stream, void,                                                       \
    (void* dest, const void* src, size_t nelems, int pe, cudaStream_t stream))         \
  X(put##BITS##_nbi_on_stream, void,                                                   \
    (void* dest, const void* src, size_t nelems, int pe, cudaStream_t stream))         \
  X(get##BITS##_on_stream, void,                                                       \
    (void* dest, const void* src, size_t nelems, int pe, cudaStream_t stream))         \
  X(get##BITS##_nbi_on_stream, void,                                                   \
    (void* dest, const void* src, size_t nelems, int pe, cudaStream_t stream))         \
  X(iput##BITS##_on_stream, void,                                                      \
    (void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe, \
     cudaStream_t stream))                                                             \
  X(iget##BITS##_on_stream, void,                                                      \
    (void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe, \
     cudaStream_t stream))                                                             \
  X(put##BITS##_signal_on_stream, void,                                                \
    (void* dest, const void* src, size_t nelems, SYMMETRAI_STREAM_SIGNAL_PARAMS,       \
     cudaStream_t stream))                                                             \
  X(put##BITS##_signal_nbi_on_stream, void,                                            \
    (void* dest, const void* src, size_t nelems, SYMMETRAI_STREAM_SIGNAL_PARAMS,       \
     cudaStream_t stream))
#define SYMMETRAI_NVSHMEMX_WAIT_STREAM(NAME, T)                                               \
  X(NAME##_wait_until_on_stream, void, (T * ivar, int cmp, T cmp_value, cudaStream_t stream)) \
  X(NAME##_wait_until_all_on_stream, void,                                                    \
    (T * ivars, size_t nelems, const int* status, int cmp, T cmp_value, cudaStream_t stream)) \
  X(NAME##_wait_until_all_vector_on_stream, void,                                             \
    (T * ivars, size_t nelems, const int* status, int cmp, T* cmp_values, cudaStream_t stream))
#define SYMMETRA_NVSHMEMX_STREAM_FORMS                                                \
  SYMMETRA_NVSHMEM_RMA_TYPES(SYMMETRAI_NVSHMEMX_TYPED_STREAM)                         \
  SYMMETRA_NVSHMEM_SIZES(SYMMETRAI_NVSHMEMX_SIZED_STREAM)                             \
  SYMMETRA_NVSHMEM_WAIT_TYPES(SYMMETRAI_NVSHMEMX_WAIT_STREAM)                         \
  X(putmem_nbi_on_stream, void,                                                       \
    (void* dest, const void* src, size_t bytes, int pe, cudaStream_t stream))         \
  X(getmem_nbi_on_stream, void,                                                       \
    (void* dest, const void* src, size_t bytes, int pe, cudaStream_t stream))         \
  X(putmem_signal_on_stream, void,                                                    \
    (void* dest, const void* src, size_t bytes, SYMMETRAI_STREAM_SIGNAL_PARAMS,       \
     cudaStream_t stream))                                                            \
  X(putmem_signal_nbi_on_stream, void,                                                \
    (void* dest, const void* src, size_t bytes, SYMMETRAI_STREAM_SIGNAL_PARAMS,       \
     cudaStream_t stream))                                                            \
  X(signal_op_on_stream, void, (SYMMETRAI_STREAM_SIGNAL_PARAMS, cudaStream_t stream)) \
  X(signal_wait_until_on_stream, void,                                                \
    (uint64_t * sig_addr, int cmp, uint64_t cmp_value, cudaStream_t stream))

#ifdef __cplusplus
extern "C" {
#endif
#define X(name, ret, params) ret nvshmemx_##name params;
SYMMETRA_NVSHMEMX_STREAM_FORMS
#undef X
#ifdef __cplusplus
}
#endif

#endif /* SYMMETRA_NVSHMEMX_STREAM_H */
