// Implementation of device/signal.hpp. Read that header for the contract.
#pragma once

#include "symmetra/core/atomic.hpp"
#include "symmetra/device/impl/check.hpp"
#include "symmetra/device/impl/copy.hpp"
#include "symmetra/device/impl/remote.hpp"
#include "symmetra/device/impl/wait_core.hpp"

namespace symmetra::device {

namespace detail {
// Updates PE `pe`'s signal after every thread of `g` finished its stores: the group syncs, then
// one thread releases at system scope (cumulative over the group's stores, which the group sync
// ordered before it). Threads: every thread of `g`.
template <class Group>
SYMMETRA_INLINE void group_signal(Group g, const Context& ctx, std::uint64_t* sig,
                                  std::uint64_t value, SignalOp op, int pe) {
  g.sync();
  if (detail::is_remote(ctx, pe)) {  // after the group's puts: the transport orders them (fence)
    if (g.thread_rank() == 0) {
#if SYMMETRA_DEVICE_PASS
      (void)proxy_call(ctx, "signal", proxy_fence(), false, -1);
#else
      host_remote(ctx, "signal", pe).fence(ctx);
#endif
      remote_signal(ctx, "signal", sig, value, op, false, pe);
    }
    return;
  }
  if (g.thread_rank() == 0) {
    AtomicRef<std::uint64_t> s(*ctx.peer(sig, pe));
    if (op == SignalOp::kAdd) {
      s.fetch_add(value, kRelease);
    } else {
      s.store(value, kRelease);
    }
    notify(ctx, pe, sig, sizeof(*sig));
  }
}
}  // namespace detail

template <class Group>
SYMMETRA_INLINE void putmem_signal(Group g, const Context& ctx, void* dest, const void* src,
                                   std::size_t bytes, std::uint64_t* sig, std::uint64_t value,
                                   SignalOp op, int pe) {
  if (detail::checks_on(ctx)) {
    detail::check_remote(ctx, "put_signal", dest, bytes, pe);
    detail::check_remote(ctx, "put_signal", sig, sizeof(*sig), pe);
    detail::check_aligned(ctx, "put_signal", sig, sizeof(*sig));
  }
  if (detail::is_remote(ctx, pe))
    return detail::remote_put_signal(g, ctx, dest, src, bytes, sig, value, op, pe);
  detail::group_copy(g, ctx.peer(dest, pe), src, bytes);
  detail::group_signal(g, ctx, sig, value, op, pe);
}

template <class Group, class T>
SYMMETRA_INLINE void put_signal(Group g, const Context& ctx, T* dest, const T* src, std::size_t n,
                                std::uint64_t* sig, std::uint64_t value, SignalOp op, int pe) {
  putmem_signal(g, ctx, dest, src, n * sizeof(T), sig, value, op, pe);
}

template <class Group>
SYMMETRA_INLINE void putmem_signal_nbi(Group g, const Context& ctx, void* dest, const void* src,
                                       std::size_t bytes, std::uint64_t* sig, std::uint64_t value,
                                       SignalOp op, int pe) {
  putmem_signal(g, ctx, dest, src, bytes, sig, value, op, pe);
}

SYMMETRA_INLINE std::uint64_t signal_fetch(const Context& ctx, const std::uint64_t* sig) {
  if (detail::checks_on(ctx)) detail::check_symmetric(ctx, "signal_fetch", sig, sizeof(*sig));
  return detail::atomic_load(sig, detail::kAcquire);
}

SYMMETRA_INLINE std::uint64_t signal_wait_until(const Context& ctx, const std::uint64_t* sig,
                                                Cmp cmp, std::uint64_t value) {
  return detail::wait_value(ctx, "signal_wait_until", sig, cmp, value);
}

}  // namespace symmetra::device
