// OpenSHMEM remote memory access and put-with-signal (shmem.h): typed, sized and mem forms, each
// with and without a context. One template per operation; the C names are generated from the
// type tables.
#include "bindings/shmem/state.hpp"

namespace symmetra::shmem {
namespace {

void putmem(shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, int pe,
            const char* op) {
  check_ctx(ctx, op);
  SYMMETRA_SHMEM_GUARD(op, rt(op).putmem(dest, src, bytes, world_pe(ctx, pe, op)));
}
void getmem(shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, int pe,
            const char* op) {
  check_ctx(ctx, op);
  SYMMETRA_SHMEM_GUARD(op, rt(op).getmem(dest, src, bytes, world_pe(ctx, pe, op)));
}
// Complete by the next quiet: to a PE of another host, several stay in flight.
void getmem_nbi(shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, int pe,
                const char* op) {
  check_ctx(ctx, op);
  SYMMETRA_SHMEM_GUARD(op, rt(op).getmem_nbi(dest, src, bytes, world_pe(ctx, pe, op)));
}

// Strided forms move elements of E (a fixed-width type or Bytes16).
template <class E>
void iput(shmem_ctx_t ctx, void* dest, const void* src, std::ptrdiff_t dst, std::ptrdiff_t sst,
          std::size_t n, int pe, const char* op) {
  check_ctx(ctx, op);
  SYMMETRA_SHMEM_GUARD(op, rt(op).iput(static_cast<E*>(dest), static_cast<const E*>(src), dst, sst,
                                       n, world_pe(ctx, pe, op)));
}
template <class E>
void iget(shmem_ctx_t ctx, void* dest, const void* src, std::ptrdiff_t dst, std::ptrdiff_t sst,
          std::size_t n, int pe, const char* op) {
  check_ctx(ctx, op);
  SYMMETRA_SHMEM_GUARD(op, rt(op).iget(static_cast<E*>(dest), static_cast<const E*>(src), dst, sst,
                                       n, world_pe(ctx, pe, op)));
}

// Blocked strided forms (OpenSHMEM 1.6): one contiguous transfer of bsize elements of `elem`
// bytes per block, each checked like a put or get of its own. Blocks of dest may not overlap.
void blocked(shmem_ctx_t ctx, void* dest, const void* src, std::ptrdiff_t dst, std::ptrdiff_t sst,
             std::size_t bsize, std::size_t nblocks, int pe, std::size_t elem, bool put,
             const char* op) {
  check_ctx(ctx, op);
  if (nblocks > 1 && (dst < 0 || static_cast<std::size_t>(dst) < bsize || sst <= 0))
    die(op, "dst " + std::to_string(dst) + " and sst " + std::to_string(sst) + " with bsize " +
                std::to_string(bsize) + " and " + std::to_string(nblocks) +
                " blocks: the strides must be positive and dst at least bsize (blocks of dest "
                "would overlap)");
  if (bsize == 0 || nblocks == 0) return;
  SYMMETRA_SHMEM_GUARD(op, {
    Runtime& r = rt(op);
    const int target = world_pe(ctx, pe, op);
    auto* d = static_cast<char*>(dest);
    const auto* s = static_cast<const char*>(src);
    const std::size_t bytes = bsize * elem;
    for (std::size_t k = 0; k < nblocks; ++k) {
      const std::ptrdiff_t kk = static_cast<std::ptrdiff_t>(k);
      char* dk = d + kk * dst * static_cast<std::ptrdiff_t>(elem);
      const char* sk = s + kk * sst * static_cast<std::ptrdiff_t>(elem);
      if (put)
        r.putmem(dk, sk, bytes, target);
      else
        r.getmem(dk, sk, bytes, target);
    }
  });
}

void put_signal(shmem_ctx_t ctx, void* dest, const void* src, std::size_t bytes, std::uint64_t* sig,
                std::uint64_t value, int sig_op, int pe, const char* op) {
  check_ctx(ctx, op);
  SYMMETRA_SHMEM_GUARD(op, rt(op).putmem_signal(dest, src, bytes, sig, value,
                                                signal_op_of(sig_op, op), world_pe(ctx, pe, op)));
}

}  // namespace
}  // namespace symmetra::shmem

using namespace symmetra::shmem;

extern "C" {

#define SYMMETRA_DEF_RMA(T, N)                                                                     \
  void shmem_##N##_put(T* d, const T* s, size_t n, int pe) {                                       \
    putmem(SHMEM_CTX_DEFAULT, d, s, n * sizeof(T), pe, "shmem_" #N "_put");                        \
  }                                                                                                \
  void shmem_ctx_##N##_put(shmem_ctx_t c, T* d, const T* s, size_t n, int pe) {                    \
    putmem(c, d, s, n * sizeof(T), pe, "shmem_ctx_" #N "_put");                                    \
  }                                                                                                \
  void shmem_##N##_get(T* d, const T* s, size_t n, int pe) {                                       \
    getmem(SHMEM_CTX_DEFAULT, d, s, n * sizeof(T), pe, "shmem_" #N "_get");                        \
  }                                                                                                \
  void shmem_ctx_##N##_get(shmem_ctx_t c, T* d, const T* s, size_t n, int pe) {                    \
    getmem(c, d, s, n * sizeof(T), pe, "shmem_ctx_" #N "_get");                                    \
  }                                                                                                \
  void shmem_##N##_put_nbi(T* d, const T* s, size_t n, int pe) {                                   \
    putmem(SHMEM_CTX_DEFAULT, d, s, n * sizeof(T), pe, "shmem_" #N "_put_nbi");                    \
  }                                                                                                \
  void shmem_ctx_##N##_put_nbi(shmem_ctx_t c, T* d, const T* s, size_t n, int pe) {                \
    putmem(c, d, s, n * sizeof(T), pe, "shmem_ctx_" #N "_put_nbi");                                \
  }                                                                                                \
  void shmem_##N##_get_nbi(T* d, const T* s, size_t n, int pe) {                                   \
    getmem_nbi(SHMEM_CTX_DEFAULT, d, s, n * sizeof(T), pe, "shmem_" #N "_get_nbi");                \
  }                                                                                                \
  void shmem_ctx_##N##_get_nbi(shmem_ctx_t c, T* d, const T* s, size_t n, int pe) {                \
    getmem_nbi(c, d, s, n * sizeof(T), pe, "shmem_ctx_" #N "_get_nbi");                            \
  }                                                                                                \
  void shmem_##N##_p(T* d, T v, int pe) {                                                          \
    putmem(SHMEM_CTX_DEFAULT, d, &v, sizeof(T), pe, "shmem_" #N "_p");                             \
  }                                                                                                \
  void shmem_ctx_##N##_p(shmem_ctx_t c, T* d, T v, int pe) {                                       \
    putmem(c, d, &v, sizeof(T), pe, "shmem_ctx_" #N "_p");                                         \
  }                                                                                                \
  T shmem_##N##_g(const T* s, int pe) {                                                            \
    T v;                                                                                           \
    getmem(SHMEM_CTX_DEFAULT, &v, s, sizeof(T), pe, "shmem_" #N "_g");                             \
    return v;                                                                                      \
  }                                                                                                \
  T shmem_ctx_##N##_g(shmem_ctx_t c, const T* s, int pe) {                                         \
    T v;                                                                                           \
    getmem(c, &v, s, sizeof(T), pe, "shmem_ctx_" #N "_g");                                         \
    return v;                                                                                      \
  }                                                                                                \
  void shmem_##N##_iput(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {        \
    iput<word_t<sizeof(T)>>(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe, "shmem_" #N "_iput");        \
  }                                                                                                \
  void shmem_ctx_##N##_iput(shmem_ctx_t c, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst,         \
                            size_t n, int pe) {                                                    \
    iput<word_t<sizeof(T)>>(c, d, s, dst, sst, n, pe, "shmem_ctx_" #N "_iput");                    \
  }                                                                                                \
  void shmem_##N##_iget(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {        \
    iget<word_t<sizeof(T)>>(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe, "shmem_" #N "_iget");        \
  }                                                                                                \
  void shmem_ctx_##N##_iget(shmem_ctx_t c, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst,         \
                            size_t n, int pe) {                                                    \
    iget<word_t<sizeof(T)>>(c, d, s, dst, sst, n, pe, "shmem_ctx_" #N "_iget");                    \
  }                                                                                                \
  void shmem_##N##_put_signal(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op,       \
                              int pe) {                                                            \
    put_signal(SHMEM_CTX_DEFAULT, d, s, n * sizeof(T), sig, v, op, pe, "shmem_" #N "_put_signal"); \
  }                                                                                                \
  void shmem_ctx_##N##_put_signal(shmem_ctx_t c, T* d, const T* s, size_t n, uint64_t* sig,        \
                                  uint64_t v, int op, int pe) {                                    \
    put_signal(c, d, s, n * sizeof(T), sig, v, op, pe, "shmem_ctx_" #N "_put_signal");             \
  }                                                                                                \
  void shmem_##N##_put_signal_nbi(T* d, const T* s, size_t n, uint64_t* sig, uint64_t v, int op,   \
                                  int pe) {                                                        \
    put_signal(SHMEM_CTX_DEFAULT, d, s, n * sizeof(T), sig, v, op, pe,                             \
               "shmem_" #N "_put_signal_nbi");                                                     \
  }                                                                                                \
  void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t c, T* d, const T* s, size_t n, uint64_t* sig,    \
                                      uint64_t v, int op, int pe) {                                \
    put_signal(c, d, s, n * sizeof(T), sig, v, op, pe, "shmem_ctx_" #N "_put_signal_nbi");         \
  }
SHMEM_RMA_TYPES(SYMMETRA_DEF_RMA)

#define SYMMETRA_DEF_BLOCKED_AS(NAME, T, BYTES)                                                 \
  void shmem_##NAME##ibput(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t n,  \
                           int pe) {                                                            \
    blocked(SHMEM_CTX_DEFAULT, d, s, dst, sst, b, n, pe, BYTES, true, "shmem_" #NAME "ibput");  \
  }                                                                                             \
  void shmem_ctx_##NAME##ibput(shmem_ctx_t c, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst,   \
                               size_t b, size_t n, int pe) {                                    \
    blocked(c, d, s, dst, sst, b, n, pe, BYTES, true, "shmem_ctx_" #NAME "ibput");              \
  }                                                                                             \
  void shmem_##NAME##ibget(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t n,  \
                           int pe) {                                                            \
    blocked(SHMEM_CTX_DEFAULT, d, s, dst, sst, b, n, pe, BYTES, false, "shmem_" #NAME "ibget"); \
  }                                                                                             \
  void shmem_ctx_##NAME##ibget(shmem_ctx_t c, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst,   \
                               size_t b, size_t n, int pe) {                                    \
    blocked(c, d, s, dst, sst, b, n, pe, BYTES, false, "shmem_ctx_" #NAME "ibget");             \
  }
#define SYMMETRA_DEF_BLOCKED(T, N) SYMMETRA_DEF_BLOCKED_AS(N##_, T, sizeof(T))
SHMEM_RMA_TYPES(SYMMETRA_DEF_BLOCKED)

// Sized forms: B bits per element (mem: bytes).
#define SYMMETRA_DEF_SIZED_AS(B, BYTES, E)                                                        \
  void shmem_put##B(void* d, const void* s, size_t n, int pe) {                                   \
    putmem(SHMEM_CTX_DEFAULT, d, s, n* BYTES, pe, "shmem_put" #B);                                \
  }                                                                                               \
  void shmem_ctx_put##B(shmem_ctx_t c, void* d, const void* s, size_t n, int pe) {                \
    putmem(c, d, s, n* BYTES, pe, "shmem_ctx_put" #B);                                            \
  }                                                                                               \
  void shmem_get##B(void* d, const void* s, size_t n, int pe) {                                   \
    getmem(SHMEM_CTX_DEFAULT, d, s, n* BYTES, pe, "shmem_get" #B);                                \
  }                                                                                               \
  void shmem_ctx_get##B(shmem_ctx_t c, void* d, const void* s, size_t n, int pe) {                \
    getmem(c, d, s, n* BYTES, pe, "shmem_ctx_get" #B);                                            \
  }                                                                                               \
  void shmem_put##B##_nbi(void* d, const void* s, size_t n, int pe) {                             \
    putmem(SHMEM_CTX_DEFAULT, d, s, n* BYTES, pe, "shmem_put" #B "_nbi");                         \
  }                                                                                               \
  void shmem_ctx_put##B##_nbi(shmem_ctx_t c, void* d, const void* s, size_t n, int pe) {          \
    putmem(c, d, s, n* BYTES, pe, "shmem_ctx_put" #B "_nbi");                                     \
  }                                                                                               \
  void shmem_get##B##_nbi(void* d, const void* s, size_t n, int pe) {                             \
    getmem_nbi(SHMEM_CTX_DEFAULT, d, s, n* BYTES, pe, "shmem_get" #B "_nbi");                     \
  }                                                                                               \
  void shmem_ctx_get##B##_nbi(shmem_ctx_t c, void* d, const void* s, size_t n, int pe) {          \
    getmem_nbi(c, d, s, n* BYTES, pe, "shmem_ctx_get" #B "_nbi");                                 \
  }                                                                                               \
  void shmem_iput##B(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {    \
    iput<E>(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe, "shmem_iput" #B);                           \
  }                                                                                               \
  void shmem_ctx_iput##B(shmem_ctx_t c, void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst,     \
                         size_t n, int pe) {                                                      \
    iput<E>(c, d, s, dst, sst, n, pe, "shmem_ctx_iput" #B);                                       \
  }                                                                                               \
  void shmem_iget##B(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {    \
    iget<E>(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe, "shmem_iget" #B);                           \
  }                                                                                               \
  void shmem_ctx_iget##B(shmem_ctx_t c, void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst,     \
                         size_t n, int pe) {                                                      \
    iget<E>(c, d, s, dst, sst, n, pe, "shmem_ctx_iget" #B);                                       \
  }                                                                                               \
  void shmem_put##B##_signal(void* d, const void* s, size_t n, uint64_t* sig, uint64_t v, int op, \
                             int pe) {                                                            \
    put_signal(SHMEM_CTX_DEFAULT, d, s, n* BYTES, sig, v, op, pe, "shmem_put" #B "_signal");      \
  }                                                                                               \
  void shmem_ctx_put##B##_signal(shmem_ctx_t c, void* d, const void* s, size_t n, uint64_t* sig,  \
                                 uint64_t v, int op, int pe) {                                    \
    put_signal(c, d, s, n* BYTES, sig, v, op, pe, "shmem_ctx_put" #B "_signal");                  \
  }                                                                                               \
  void shmem_put##B##_signal_nbi(void* d, const void* s, size_t n, uint64_t* sig, uint64_t v,     \
                                 int op, int pe) {                                                \
    put_signal(SHMEM_CTX_DEFAULT, d, s, n* BYTES, sig, v, op, pe, "shmem_put" #B "_signal_nbi");  \
  }                                                                                               \
  void shmem_ctx_put##B##_signal_nbi(shmem_ctx_t c, void* d, const void* s, size_t n,             \
                                     uint64_t* sig, uint64_t v, int op, int pe) {                 \
    put_signal(c, d, s, n* BYTES, sig, v, op, pe, "shmem_ctx_put" #B "_signal_nbi");              \
  }
SYMMETRA_DEF_SIZED_AS(8, 1, std::uint8_t)
SYMMETRA_DEF_SIZED_AS(16, 2, std::uint16_t)
SYMMETRA_DEF_SIZED_AS(32, 4, std::uint32_t)
SYMMETRA_DEF_SIZED_AS(64, 8, std::uint64_t)
SYMMETRA_DEF_SIZED_AS(128, 16, Bytes16)
SYMMETRA_DEF_SIZED_AS(mem, 1, std::uint8_t)

#define SYMMETRA_DEF_SIZED_BLOCKED(B)                                                           \
  void shmem_ibput##B(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t n, \
                      int pe) {                                                                 \
    blocked(SHMEM_CTX_DEFAULT, d, s, dst, sst, b, n, pe, B / 8, true, "shmem_ibput" #B);        \
  }                                                                                             \
  void shmem_ctx_ibput##B(shmem_ctx_t c, void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst,  \
                          size_t b, size_t n, int pe) {                                         \
    blocked(c, d, s, dst, sst, b, n, pe, B / 8, true, "shmem_ctx_ibput" #B);                    \
  }                                                                                             \
  void shmem_ibget##B(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t n, \
                      int pe) {                                                                 \
    blocked(SHMEM_CTX_DEFAULT, d, s, dst, sst, b, n, pe, B / 8, false, "shmem_ibget" #B);       \
  }                                                                                             \
  void shmem_ctx_ibget##B(shmem_ctx_t c, void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst,  \
                          size_t b, size_t n, int pe) {                                         \
    blocked(c, d, s, dst, sst, b, n, pe, B / 8, false, "shmem_ctx_ibget" #B);                   \
  }
SYMMETRA_SIZED_BITS(SYMMETRA_DEF_SIZED_BLOCKED)

// The signal's update alone (OpenSHMEM 1.6): the AMO put-with-signal applies to the signal.
void shmem_ctx_signal_add(shmem_ctx_t c, uint64_t* sig, uint64_t v, int pe) {
  constexpr const char* op = "shmem_ctx_signal_add";
  check_ctx(c, op);
  SYMMETRA_SHMEM_GUARD(op, rt(op).atomic_add(sig, v, world_pe(c, pe, op)));
}
void shmem_signal_add(uint64_t* sig, uint64_t v, int pe) {
  constexpr const char* op = "shmem_signal_add";
  SYMMETRA_SHMEM_GUARD(op, rt(op).atomic_add(sig, v, pe));
}
void shmem_ctx_signal_set(shmem_ctx_t c, uint64_t* sig, uint64_t v, int pe) {
  constexpr const char* op = "shmem_ctx_signal_set";
  check_ctx(c, op);
  SYMMETRA_SHMEM_GUARD(op, rt(op).atomic_set(sig, v, world_pe(c, pe, op)));
}
void shmem_signal_set(uint64_t* sig, uint64_t v, int pe) {
  constexpr const char* op = "shmem_signal_set";
  SYMMETRA_SHMEM_GUARD(op, rt(op).atomic_set(sig, v, pe));
}

uint64_t shmem_signal_fetch(const uint64_t* sig) {
  SYMMETRA_SHMEM_GUARD("shmem_signal_fetch", return rt("shmem_signal_fetch").signal_fetch(sig));
  return 0;
}
uint64_t shmem_signal_wait_until(uint64_t* sig, int cmp, uint64_t value) {
  SYMMETRA_SHMEM_GUARD("shmem_signal_wait_until",
                       return rt("shmem_signal_wait_until")
                           .signal_wait_until(sig, cmp_of(cmp, "shmem_signal_wait_until"), value));
  return 0;
}

}  // extern "C"
