// Implementation of device/rma.hpp. Read that header for the contract.
#pragma once

#include <type_traits>

#include "symmetra/core/atomic.hpp"
#include "symmetra/device/group.hpp"
#include "symmetra/device/impl/check.hpp"
#include "symmetra/device/impl/copy.hpp"
#include "symmetra/device/impl/remote.hpp"
#include "symmetra/device/impl/wait_core.hpp"

namespace symmetra::device {

namespace detail {
// Types p/g move with one atomic access, so a PE polling the word never sees a torn value.
template <class T>
inline constexpr bool kWordSized = std::is_arithmetic_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 ||
                                                               sizeof(T) == 4 || sizeof(T) == 8);
}  // namespace detail

namespace detail {
// The bodies of put, get, put_nbi, p and g after the check and the translation: `remote` is
// pe's copy of the symmetric `dest` (or `src`). The host API translates and checks in one step
// (Runtime::checked_peer) and enters here; the device forms check, translate with peer() and
// enter here too, so both run the same code.
template <class Group>
SYMMETRA_INLINE void put_to(Group g, const Context& ctx, void* remote, void* dest, const void* src,
                            std::size_t bytes, int pe) {
  group_copy(g, remote, src, bytes);
  g.sync();
  if (g.thread_rank() == 0) notify(ctx, pe, dest, bytes);
}

template <class Group>
SYMMETRA_INLINE void get_from(Group g, void* dest, const void* remote, std::size_t bytes) {
  group_copy_in(g, dest, remote, bytes);
  g.sync();
}

// Loads and stores complete when issued, so the nbi forms copy at once. putmem_nbi leaves the
// wake-up (a fence and a load per call) to quiet(), when its data is due: on the CPU it notes the
// target, and quiet() rings a PE sleeping on the words stored (docs/memory_model.md).
template <class Group>
SYMMETRA_INLINE void put_nbi_to(Group g, const Context& ctx, void* remote, void* dest,
                                const void* src, std::size_t bytes, int pe) {
  group_copy(g, remote, src, bytes);
  g.sync();
#if !SYMMETRA_DEVICE_PASS
  if (g.thread_rank() == 0) note_nbi(ctx, pe, dest, bytes);
#else
  (void)ctx, (void)dest, (void)pe;
#endif
}

template <class T>
SYMMETRA_INLINE void p_to(const Context& ctx, T* remote, T* dest, T value, int pe) {
  if constexpr (kWordSized<T>) {
    if (checks_on(ctx)) check_aligned(ctx, "p", dest, sizeof(T));
      // Unordered by contract (fence() orders it). The CPU store is a release anyway (free on
      // x86, and ThreadSanitizer sees it); on the GPU a release would cost a system fence.
#if SYMMETRA_DEVICE_PASS
    atomic_store(remote, value, kRelaxed);
#else
    atomic_store(remote, value, kRelease);
#endif
  } else {
    *remote = value;
  }
  notify(ctx, pe, dest, sizeof(T));
}

template <class T>
SYMMETRA_INLINE T g_from(const T* remote) {
  if constexpr (kWordSized<T>) {
    return atomic_load(remote, kAcquire);
  } else {
    return *remote;
  }
}

// p and g to a PE that is not reachable: one put or get of the value (the transport moves a
// word-sized value whole).
template <class T>
SYMMETRA_INLINE void remote_p(const Context& ctx, T* dest, T value, int pe) {
  if constexpr (kWordSized<T>)
    if (checks_on(ctx)) check_aligned(ctx, "p", dest, sizeof(T));
  remote_put(ThreadGroup{}, ctx, "p", dest, &value, sizeof(T), pe);
}
template <class T>
SYMMETRA_INLINE T remote_g(const Context& ctx, const T* src, int pe) {
  T v;
  remote_get(ThreadGroup{}, ctx, "g", &v, src, sizeof(T), pe);
  return v;
}
}  // namespace detail

template <class Group>
SYMMETRA_INLINE void putmem(Group g, const Context& ctx, void* dest, const void* src,
                            std::size_t bytes, int pe) {
  detail::check_remote(ctx, "put", dest, bytes, pe);
  if (detail::is_remote(ctx, pe)) return detail::remote_put(g, ctx, "put", dest, src, bytes, pe);
  detail::put_to(g, ctx, ctx.peer(dest, pe), dest, src, bytes, pe);
}

template <class Group>
SYMMETRA_INLINE void getmem(Group g, const Context& ctx, void* dest, const void* src,
                            std::size_t bytes, int pe) {
  detail::check_remote(ctx, "get", src, bytes, pe);
  if (detail::is_remote(ctx, pe)) return detail::remote_get(g, ctx, "get", dest, src, bytes, pe);
  detail::get_from(g, dest, ctx.peer(src, pe), bytes);
}

template <class Group, class T>
SYMMETRA_INLINE void put(Group g, const Context& ctx, T* dest, const T* src, std::size_t n,
                         int pe) {
  putmem(g, ctx, dest, src, n * sizeof(T), pe);
}

template <class Group, class T>
SYMMETRA_INLINE void get(Group g, const Context& ctx, T* dest, const T* src, std::size_t n,
                         int pe) {
  getmem(g, ctx, dest, src, n * sizeof(T), pe);
}

template <class Group>
SYMMETRA_INLINE void putmem_nbi(Group g, const Context& ctx, void* dest, const void* src,
                                std::size_t bytes, int pe) {
  detail::check_remote(ctx, "put_nbi", dest, bytes, pe);
  if (detail::is_remote(ctx, pe))
    return detail::remote_put(g, ctx, "put_nbi", dest, src, bytes, pe);
  detail::put_nbi_to(g, ctx, ctx.peer(dest, pe), dest, src, bytes, pe);
}
template <class Group>
SYMMETRA_INLINE void getmem_nbi(Group g, const Context& ctx, void* dest, const void* src,
                                std::size_t bytes, int pe) {
  detail::check_remote(ctx, "get_nbi", src, bytes, pe);
  // Remote: complete by quiet, so that a transport keeps several in flight. Local: loads
  // complete when issued.
  if (detail::is_remote(ctx, pe))
    return detail::remote_get_nbi(g, ctx, "get_nbi", dest, src, bytes, pe);
  detail::get_from(g, dest, ctx.peer(src, pe), bytes);
}
template <class Group, class T>
SYMMETRA_INLINE void put_nbi(Group g, const Context& ctx, T* dest, const T* src, std::size_t n,
                             int pe) {
  putmem_nbi(g, ctx, dest, src, n * sizeof(T), pe);
}
template <class Group, class T>
SYMMETRA_INLINE void get_nbi(Group g, const Context& ctx, T* dest, const T* src, std::size_t n,
                             int pe) {
  getmem_nbi(g, ctx, dest, src, n * sizeof(T), pe);
}

template <class T>
SYMMETRA_INLINE void p(const Context& ctx, T* dest, T value, int pe) {
  detail::check_remote(ctx, "p", dest, sizeof(T), pe);
  if (detail::is_remote(ctx, pe)) return detail::remote_p(ctx, dest, value, pe);
  detail::p_to(ctx, ctx.peer(dest, pe), dest, value, pe);
}

template <class T>
SYMMETRA_INLINE T g(const Context& ctx, const T* src, int pe) {
  detail::check_remote(ctx, "g", src, sizeof(T), pe);
  if (detail::is_remote(ctx, pe)) return detail::remote_g(ctx, src, pe);
  return detail::g_from(ctx.peer(src, pe));
}

template <class T>
SYMMETRA_INLINE T g_unordered(const Context& ctx, const T* src, int pe) {
  detail::check_remote(ctx, "g", src, sizeof(T), pe);
  if (detail::is_remote(ctx, pe)) return detail::remote_g(ctx, src, pe);
  const T* remote = ctx.peer(src, pe);
#if SYMMETRA_DEVICE_PASS
  // A plain load, as NVSHMEM's g: it may hit in L1, where a relaxed (strong) load goes to L2
  // every time (docs/nvshmem.md#benchmark-against-nvshmem-34). An aligned word's load is one
  // access either way; what makes another PE's store visible is the synchronization before it.
  return *remote;
#else
  if constexpr (detail::kWordSized<T>)
    return detail::atomic_load(remote, detail::kRelaxed);
  else
    return *remote;
#endif
}

template <class Group, class T>
SYMMETRA_INLINE void iput(Group grp, const Context& ctx, T* dest, const T* src,
                          std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride, std::size_t n,
                          int pe) {
  if (n == 0) return;
  // Unit strides are a contiguous put: one copy instead of an element at a time (alltoalls
  // with unit strides runs here), and one transport put across hosts.
  if (dst_stride == 1 && src_stride == 1) return putmem(grp, ctx, dest, src, n * sizeof(T), pe);
  if (detail::checks_on(ctx)) {
    detail::check_remote(ctx, "iput", dest, sizeof(T), pe);
    detail::check_remote(ctx, "iput", dest + static_cast<std::ptrdiff_t>(n - 1) * dst_stride,
                         sizeof(T), pe);
  }
  if (detail::is_remote(ctx,
                        pe)) {  // an element at a time: strided transfers across hosts are rare
    for (std::size_t i = 0; i < n; ++i)
      detail::remote_put(grp, ctx, "iput", dest + static_cast<std::ptrdiff_t>(i) * dst_stride,
                         src + static_cast<std::ptrdiff_t>(i) * src_stride, sizeof(T), pe);
    return;
  }
  T* remote = ctx.peer(dest, pe);
  for (std::size_t i = grp.thread_rank(); i < n; i += grp.size())
    remote[static_cast<std::ptrdiff_t>(i) * dst_stride] =
        src[static_cast<std::ptrdiff_t>(i) * src_stride];
  grp.sync();
  if (grp.thread_rank() == 0)
    detail::notify(ctx, pe, dest,
                   static_cast<std::size_t>(n) * sizeof(T) * (dst_stride < 0 ? 1 : dst_stride));
}

template <class Group, class T>
SYMMETRA_INLINE void iget(Group grp, const Context& ctx, T* dest, const T* src,
                          std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride, std::size_t n,
                          int pe) {
  if (n == 0) return;
  if (dst_stride == 1 && src_stride == 1) return getmem(grp, ctx, dest, src, n * sizeof(T), pe);
  if (detail::checks_on(ctx)) {
    detail::check_remote(ctx, "iget", src, sizeof(T), pe);
    detail::check_remote(ctx, "iget", src + static_cast<std::ptrdiff_t>(n - 1) * src_stride,
                         sizeof(T), pe);
  }
  if (detail::is_remote(ctx, pe)) {
    for (std::size_t i = 0; i < n; ++i)
      detail::remote_get(grp, ctx, "iget", dest + static_cast<std::ptrdiff_t>(i) * dst_stride,
                         src + static_cast<std::ptrdiff_t>(i) * src_stride, sizeof(T), pe);
    return;
  }
  const T* remote = ctx.peer(src, pe);
  for (std::size_t i = grp.thread_rank(); i < n; i += grp.size())
    dest[static_cast<std::ptrdiff_t>(i) * dst_stride] =
        remote[static_cast<std::ptrdiff_t>(i) * src_stride];
  grp.sync();
}

template <class T>
SYMMETRA_INLINE T* ptr(const Context& ctx, T* p, int pe) {
  if (pe < 0 || pe >= ctx.n_pes || ctx.pe_index[pe] < 0) return nullptr;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const auto lo = reinterpret_cast<std::uintptr_t>(ctx.heap_base);
  if ((a < lo || a >= lo + ctx.heap_extent()) && !ctx.in_static(p)) return nullptr;
  return ctx.peer(p, pe);
}

}  // namespace symmetra::device
