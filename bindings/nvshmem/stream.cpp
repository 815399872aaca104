// NVSHMEM's stream-ordered forms (nvshmemx.h, symmetra/nvshmemx_stream.h) over the Runtime's
// stream forms; those that need a value on the host synchronize the stream first.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "bindings/nvshmem/state.hpp"

#if SYMMETRA_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace symmetra::nvshmem {
namespace {

void put(const char* op, void* dest, const void* src, std::size_t bytes, int pe, Stream s) {
  guarded(op, [&] { rt(op).putmem_on_stream(dest, src, bytes, pe, s); });
}
void get(const char* op, void* dest, const void* src, std::size_t bytes, int pe, Stream s) {
  guarded(op, [&] { rt(op).getmem_on_stream(dest, src, bytes, pe, s); });
}
void put_signal(const char* op, void* dest, const void* src, std::size_t bytes, uint64_t* sig,
                uint64_t signal, int sig_op, int pe, Stream s) {
  const SignalOp how = signal_op_of(sig_op, op);
  guarded(op, [&] { rt(op).putmem_signal_on_stream(dest, src, bytes, sig, signal, how, pe, s); });
}

// Everything enqueued on `s` so far complete (on the CPU backend: the Runtime's message that
// stream forms need the GPU backend).
void synchronize(const char* op, Stream s) {
  guarded(op, [&] { rt(op).quiet_on_stream(s); });
#if SYMMETRA_HAVE_CUDA
  if (const cudaError_t rc = cudaStreamSynchronize(s); rc != cudaSuccess)
    die(op, std::string("cudaStreamSynchronize: ") + cudaGetErrorString(rc));
#endif
}

// The typed waits: one unsigned 64-bit word is the signal wait (which SYMMETRA_STREAM_WAIT=value
// turns into a stream memory wait); the rest poll in the Runtime's typed kernel.
template <class T>
void wait_on_stream(const char* op, T* ivars, std::size_t n, const int* status, int cmp, T value,
                    const T* values, Stream s) {
  const Cmp c = cmp_of(cmp, op);
  guarded(op, [&] {
    Runtime& r = rt(op);
    if constexpr (sizeof(T) == 8 && std::is_unsigned_v<T>) {
      if (n == 1 && status == nullptr && values == nullptr)
        return r.signal_wait_until_on_stream(reinterpret_cast<std::uint64_t*>(ivars), c, value, s);
    }
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    r.wait_until_all_on_stream(data_type_of<T>(), ivars, n, status, c, bits, values, s);
  });
}

// A value from the host: 64-bit ones as a stream memory write, narrower ones after the stream.
template <class T>
void p(const char* op, T* dest, T value, int pe, Stream s) {
  if constexpr (sizeof(T) == 8) {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    guarded(op, [&] {
      rt(op).signal_op_on_stream(reinterpret_cast<std::uint64_t*>(dest), bits, SignalOp::kSet, pe,
                                 s);
    });
  } else {
    synchronize(op, s);
    guarded(op, [&] { rt(op).putmem(dest, &value, sizeof(T), pe); });
  }
}
template <class T>
T g(const char* op, const T* src, int pe, Stream s) {
  synchronize(op, s);
  T value;
  guarded(op, [&] { rt(op).getmem(&value, src, sizeof(T), pe); });
  return value;
}
void strided(const char* op, bool is_put, std::size_t elem, void* dest, const void* src,
             std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems, int pe, Stream s) {
  synchronize(op, s);
  strided_bytes(op, is_put, elem, dest, src, dst, sst, nelems, pe);
}

}  // namespace
}  // namespace symmetra::nvshmem

using namespace symmetra;
namespace nv = symmetra::nvshmem;

extern "C" {

void nvshmemx_barrier_all_on_stream(cudaStream_t stream) {
  nv::guarded("nvshmemx_barrier_all_on_stream",
              [&] { nv::rt("nvshmemx_barrier_all_on_stream").barrier_all_on_stream(stream); });
}
void nvshmemx_sync_all_on_stream(cudaStream_t stream) {
  nv::guarded("nvshmemx_sync_all_on_stream", [&] {
    Runtime& r = nv::rt("nvshmemx_sync_all_on_stream");
    r.sync_on_stream(r.team_world(), stream);
  });
}
void nvshmemx_quiet_on_stream(cudaStream_t stream) {
  nv::guarded("nvshmemx_quiet_on_stream",
              [&] { nv::rt("nvshmemx_quiet_on_stream").quiet_on_stream(stream); });
}
void nvshmemx_putmem_on_stream(void* dest, const void* src, size_t bytes, int pe,
                               cudaStream_t stream) {
  nv::put("nvshmemx_putmem_on_stream", dest, src, bytes, pe, stream);
}
void nvshmemx_getmem_on_stream(void* dest, const void* src, size_t bytes, int pe,
                               cudaStream_t stream) {
  nv::get("nvshmemx_getmem_on_stream", dest, src, bytes, pe, stream);
}
void nvshmemx_putmem_nbi_on_stream(void* dest, const void* src, size_t bytes, int pe,
                                   cudaStream_t stream) {
  nv::put("nvshmemx_putmem_nbi_on_stream", dest, src, bytes, pe, stream);
}
void nvshmemx_getmem_nbi_on_stream(void* dest, const void* src, size_t bytes, int pe,
                                   cudaStream_t stream) {
  nv::get("nvshmemx_getmem_nbi_on_stream", dest, src, bytes, pe, stream);
}
void nvshmemx_putmem_signal_on_stream(void* dest, const void* src, size_t bytes, uint64_t* sig_addr,
                                      uint64_t signal, int sig_op, int pe, cudaStream_t stream) {
  nv::put_signal("nvshmemx_putmem_signal_on_stream", dest, src, bytes, sig_addr, signal, sig_op, pe,
                 stream);
}
void nvshmemx_putmem_signal_nbi_on_stream(void* dest, const void* src, size_t bytes,
                                          uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,
                                          cudaStream_t stream) {
  nv::put_signal("nvshmemx_putmem_signal_nbi_on_stream", dest, src, bytes, sig_addr, signal, sig_op,
                 pe, stream);
}
void nvshmemx_signal_op_on_stream(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,
                                  cudaStream_t stream) {
  constexpr const char* op = "nvshmemx_signal_op_on_stream";
  const SignalOp how = nv::signal_op_of(sig_op, op);
  nv::guarded(op, [&] { nv::rt(op).signal_op_on_stream(sig_addr, signal, how, pe, stream); });
}
void nvshmemx_signal_wait_until_on_stream(uint64_t* sig_addr, int cmp, uint64_t cmp_value,
                                          cudaStream_t stream) {
  constexpr const char* op = "nvshmemx_signal_wait_until_on_stream";
  const Cmp c = nv::cmp_of(cmp, op);
  nv::guarded(op, [&] { nv::rt(op).signal_wait_until_on_stream(sig_addr, c, cmp_value, stream); });
}

// Elements of SIZE bytes: typed forms (T, sizeof(T)) and sized ones (void, BITS / 8).
#define SYMMETRA_NVSHMEMX_STREAM_MOVES(PUT, GET, IPUT, IGET, T, SIZE)                              \
  void nvshmemx_##PUT##_on_stream(T* dest, const T* src, size_t nelems, int pe,                    \
                                  cudaStream_t stream) {                                           \
    nv::put("nvshmemx_" #PUT "_on_stream", dest, src, nelems*(SIZE), pe, stream);                  \
  }                                                                                                \
  void nvshmemx_##PUT##_nbi_on_stream(T* dest, const T* src, size_t nelems, int pe,                \
                                      cudaStream_t stream) {                                       \
    nv::put("nvshmemx_" #PUT "_nbi_on_stream", dest, src, nelems*(SIZE), pe, stream);              \
  }                                                                                                \
  void nvshmemx_##GET##_on_stream(T* dest, const T* src, size_t nelems, int pe,                    \
                                  cudaStream_t stream) {                                           \
    nv::get("nvshmemx_" #GET "_on_stream", dest, src, nelems*(SIZE), pe, stream);                  \
  }                                                                                                \
  void nvshmemx_##GET##_nbi_on_stream(T* dest, const T* src, size_t nelems, int pe,                \
                                      cudaStream_t stream) {                                       \
    nv::get("nvshmemx_" #GET "_nbi_on_stream", dest, src, nelems*(SIZE), pe, stream);              \
  }                                                                                                \
  void nvshmemx_##IPUT##_on_stream(T* dest, const T* src, ptrdiff_t dst, ptrdiff_t sst,            \
                                   size_t nelems, int pe, cudaStream_t stream) {                   \
    nv::strided("nvshmemx_" #IPUT "_on_stream", true, SIZE, dest, src, dst, sst, nelems, pe,       \
                stream);                                                                           \
  }                                                                                                \
  void nvshmemx_##IGET##_on_stream(T* dest, const T* src, ptrdiff_t dst, ptrdiff_t sst,            \
                                   size_t nelems, int pe, cudaStream_t stream) {                   \
    nv::strided("nvshmemx_" #IGET "_on_stream", false, SIZE, dest, src, dst, sst, nelems, pe,      \
                stream);                                                                           \
  }                                                                                                \
  void nvshmemx_##PUT##_signal_on_stream(T* dest, const T* src, size_t nelems, uint64_t* sig_addr, \
                                         uint64_t signal, int sig_op, int pe,                      \
                                         cudaStream_t stream) {                                    \
    nv::put_signal("nvshmemx_" #PUT "_signal_on_stream", dest, src, nelems*(SIZE), sig_addr,       \
                   signal, sig_op, pe, stream);                                                    \
  }                                                                                                \
  void nvshmemx_##PUT##_signal_nbi_on_stream(T* dest, const T* src, size_t nelems,                 \
                                             uint64_t* sig_addr, uint64_t signal, int sig_op,      \
                                             int pe, cudaStream_t stream) {                        \
    nv::put_signal("nvshmemx_" #PUT "_signal_nbi_on_stream", dest, src, nelems*(SIZE), sig_addr,   \
                   signal, sig_op, pe, stream);                                                    \
  }
#define SYMMETRA_NVSHMEMX_TYPED_STREAM(NAME, T)                                                  \
  SYMMETRA_NVSHMEMX_STREAM_MOVES(NAME##_put, NAME##_get, NAME##_iput, NAME##_iget, T, sizeof(T)) \
  void nvshmemx_##NAME##_p_on_stream(T* dest, const T value, int pe, cudaStream_t stream) {      \
    nv::p("nvshmemx_" #NAME "_p_on_stream", dest, value, pe, stream);                            \
  }                                                                                              \
  T nvshmemx_##NAME##_g_on_stream(const T* src, int pe, cudaStream_t stream) {                   \
    return nv::g("nvshmemx_" #NAME "_g_on_stream", src, pe, stream);                             \
  }
SYMMETRA_NVSHMEM_RMA_TYPES(SYMMETRA_NVSHMEMX_TYPED_STREAM)
#define SYMMETRA_NVSHMEMX_SIZED_STREAM(BITS) \
  SYMMETRA_NVSHMEMX_STREAM_MOVES(put##BITS, get##BITS, iput##BITS, iget##BITS, void, (BITS) / 8)
SYMMETRA_NVSHMEM_SIZES(SYMMETRA_NVSHMEMX_SIZED_STREAM)

// Typed and array waits on a stream (nv::wait_on_stream).
#define SYMMETRA_NVSHMEMX_WAIT_STREAM(NAME, T)                                                   \
  void nvshmemx_##NAME##_wait_until_on_stream(T* ivar, int cmp, T cmp_value,                     \
                                              cudaStream_t stream) {                             \
    nv::wait_on_stream<T>("nvshmemx_" #NAME "_wait_until_on_stream", ivar, 1, nullptr, cmp,      \
                          cmp_value, nullptr, stream);                                           \
  }                                                                                              \
  void nvshmemx_##NAME##_wait_until_all_on_stream(T* ivars, size_t nelems, const int* status,    \
                                                  int cmp, T cmp_value, cudaStream_t stream) {   \
    nv::wait_on_stream<T>("nvshmemx_" #NAME "_wait_until_all_on_stream", ivars, nelems, status,  \
                          cmp, cmp_value, nullptr, stream);                                      \
  }                                                                                              \
  void nvshmemx_##NAME##_wait_until_all_vector_on_stream(                                        \
      T* ivars, size_t nelems, const int* status, int cmp, T* cmp_values, cudaStream_t stream) { \
    nv::wait_on_stream<T>("nvshmemx_" #NAME "_wait_until_all_vector_on_stream", ivars, nelems,   \
                          status, cmp, static_cast<T>(0), cmp_values, stream);                   \
  }
SYMMETRA_NVSHMEM_WAIT_TYPES(SYMMETRA_NVSHMEMX_WAIT_STREAM)

}  // extern "C"
