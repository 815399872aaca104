// NVSHMEM's further RMA forms (symmetra/nvshmem_rma.h) on the host: non-blocking, strided, sized
// and typed put-with-signal, over the Runtime's byte and strided calls.
#include <cstdint>

#include "bindings/nvshmem/state.hpp"

namespace symmetra::nvshmem {
namespace {

void put(const char* op, void* dest, const void* src, std::size_t bytes, int pe, bool nbi) {
  guarded(op, [&] {
    if (nbi) return rt(op).putmem_nbi(dest, src, bytes, pe);
    rt(op).putmem(dest, src, bytes, pe);
  });
}
void get(const char* op, void* dest, const void* src, std::size_t bytes, int pe, bool nbi) {
  guarded(op, [&] {
    if (nbi) return rt(op).getmem_nbi(dest, src, bytes, pe);
    rt(op).getmem(dest, src, bytes, pe);
  });
}
void put_signal(const char* op, void* dest, const void* src, std::size_t bytes, uint64_t* sig,
                uint64_t signal, int sig_op, int pe) {
  const SignalOp how = signal_op_of(sig_op, op);
  guarded(op, [&] { rt(op).putmem_signal(dest, src, bytes, sig, signal, how, pe); });
}

// Strided, as unsigned words of the element's size; 16-byte elements as their two halves.
template <std::size_t kBytes>
void strided(const char* op, bool is_put, void* dest, const void* src, std::ptrdiff_t dst,
             std::ptrdiff_t sst, std::size_t nelems, int pe) {
  guarded(op, [&] {
    Runtime& r = rt(op);
    if constexpr (kBytes == 16) {
      auto* d = static_cast<std::uint64_t*>(dest);
      const auto* s = static_cast<const std::uint64_t*>(src);
      for (int half = 0; half < 2; ++half)
        is_put ? r.iput(d + half, s + half, 2 * dst, 2 * sst, nelems, pe)
               : r.iget(d + half, s + half, 2 * dst, 2 * sst, nelems, pe);
    } else {
      using W = bindings::word_t<kBytes>;
      auto* d = static_cast<W*>(dest);
      const auto* s = static_cast<const W*>(src);
      is_put ? r.iput(d, s, dst, sst, nelems, pe) : r.iget(d, s, dst, sst, nelems, pe);
    }
  });
}

}  // namespace

void strided_bytes(const char* op, bool is_put, std::size_t elem, void* dest, const void* src,
                   std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems, int pe) {
  switch (elem) {
    case 1:
      return strided<1>(op, is_put, dest, src, dst, sst, nelems, pe);
    case 2:
      return strided<2>(op, is_put, dest, src, dst, sst, nelems, pe);
    case 4:
      return strided<4>(op, is_put, dest, src, dst, sst, nelems, pe);
    case 8:
      return strided<8>(op, is_put, dest, src, dst, sst, nelems, pe);
    case 16:
      return strided<16>(op, is_put, dest, src, dst, sst, nelems, pe);
    default:
      die(op, "elements of " + std::to_string(elem) + " bytes");
  }
}

}  // namespace symmetra::nvshmem

using namespace symmetra;
namespace nv = symmetra::nvshmem;

extern "C" {

void symmetrai_host_putmem_nbi(void* dest, const void* src, size_t bytes, int pe) {
  nv::put("nvshmem_putmem_nbi", dest, src, bytes, pe, true);
}
void symmetrai_host_getmem_nbi(void* dest, const void* src, size_t bytes, int pe) {
  nv::get("nvshmem_getmem_nbi", dest, src, bytes, pe, true);
}
void symmetrai_host_putmem_signal_nbi(void* dest, const void* src, size_t bytes, uint64_t* sig_addr,
                                      uint64_t signal, int sig_op, int pe) {
  nv::put_signal("nvshmem_putmem_signal_nbi", dest, src, bytes, sig_addr, signal, sig_op, pe);
}

#define SYMMETRA_NVSHMEM_HOST_TYPED(NAME, T)                                                       \
  void symmetrai_host_##NAME##_put_nbi(T* dest, const T* src, size_t nelems, int pe) {             \
    nv::put("nvshmem_" #NAME "_put_nbi", dest, src, nelems * sizeof(T), pe, true);                 \
  }                                                                                                \
  void symmetrai_host_##NAME##_get_nbi(T* dest, const T* src, size_t nelems, int pe) {             \
    nv::get("nvshmem_" #NAME "_get_nbi", dest, src, nelems * sizeof(T), pe, true);                 \
  }                                                                                                \
  void symmetrai_host_##NAME##_iput(T* dest, const T* src, ptrdiff_t dst, ptrdiff_t sst,           \
                                    size_t nelems, int pe) {                                       \
    nv::strided_bytes("nvshmem_" #NAME "_iput", true, sizeof(T), dest, src, dst, sst, nelems, pe); \
  }                                                                                                \
  void symmetrai_host_##NAME##_iget(T* dest, const T* src, ptrdiff_t dst, ptrdiff_t sst,           \
                                    size_t nelems, int pe) {                                       \
    nv::strided_bytes("nvshmem_" #NAME "_iget", false, sizeof(T), dest, src, dst, sst, nelems,     \
                      pe);                                                                         \
  }                                                                                                \
  void symmetrai_host_##NAME##_put_signal(T* dest, const T* src, size_t nelems,                    \
                                          uint64_t* sig_addr, uint64_t signal, int sig_op,         \
                                          int pe) {                                                \
    nv::put_signal("nvshmem_" #NAME "_put_signal", dest, src, nelems * sizeof(T), sig_addr,        \
                   signal, sig_op, pe);                                                            \
  }                                                                                                \
  void symmetrai_host_##NAME##_put_signal_nbi(T* dest, const T* src, size_t nelems,                \
                                              uint64_t* sig_addr, uint64_t signal, int sig_op,     \
                                              int pe) {                                            \
    nv::put_signal("nvshmem_" #NAME "_put_signal_nbi", dest, src, nelems * sizeof(T), sig_addr,    \
                   signal, sig_op, pe);                                                            \
  }
SYMMETRA_NVSHMEM_RMA_TYPES(SYMMETRA_NVSHMEM_HOST_TYPED)
#define SYMMETRA_NVSHMEM_HOST_SIZED(BITS)                                                         \
  void symmetrai_host_put##BITS(void* dest, const void* src, size_t nelems, int pe) {             \
    nv::put("nvshmem_put" #BITS, dest, src, nelems*(BITS / 8), pe, false);                        \
  }                                                                                               \
  void symmetrai_host_get##BITS(void* dest, const void* src, size_t nelems, int pe) {             \
    nv::get("nvshmem_get" #BITS, dest, src, nelems*(BITS / 8), pe, false);                        \
  }                                                                                               \
  void symmetrai_host_put##BITS##_nbi(void* dest, const void* src, size_t nelems, int pe) {       \
    nv::put("nvshmem_put" #BITS "_nbi", dest, src, nelems*(BITS / 8), pe, true);                  \
  }                                                                                               \
  void symmetrai_host_get##BITS##_nbi(void* dest, const void* src, size_t nelems, int pe) {       \
    nv::get("nvshmem_get" #BITS "_nbi", dest, src, nelems*(BITS / 8), pe, true);                  \
  }                                                                                               \
  void symmetrai_host_iput##BITS(void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst,       \
                                 size_t nelems, int pe) {                                         \
    nv::strided_bytes("nvshmem_iput" #BITS, true, BITS / 8, dest, src, dst, sst, nelems, pe);     \
  }                                                                                               \
  void symmetrai_host_iget##BITS(void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst,       \
                                 size_t nelems, int pe) {                                         \
    nv::strided_bytes("nvshmem_iget" #BITS, false, BITS / 8, dest, src, dst, sst, nelems, pe);    \
  }                                                                                               \
  void symmetrai_host_put##BITS##_signal(void* dest, const void* src, size_t nelems,              \
                                         uint64_t* sig_addr, uint64_t signal, int sig_op,         \
                                         int pe) {                                                \
    nv::put_signal("nvshmem_put" #BITS "_signal", dest, src, nelems*(BITS / 8), sig_addr, signal, \
                   sig_op, pe);                                                                   \
  }                                                                                               \
  void symmetrai_host_put##BITS##_signal_nbi(void* dest, const void* src, size_t nelems,          \
                                             uint64_t* sig_addr, uint64_t signal, int sig_op,     \
                                             int pe) {                                            \
    nv::put_signal("nvshmem_put" #BITS "_signal_nbi", dest, src, nelems*(BITS / 8), sig_addr,     \
                   signal, sig_op, pe);                                                           \
  }
SYMMETRA_NVSHMEM_SIZES(SYMMETRA_NVSHMEM_HOST_SIZED)

#define X SYMMETRA_NVSHMEM_BOTH_NAMES
SYMMETRA_NVSHMEM_RMA_BOTH_SIDED
#undef X

}  // extern "C"
