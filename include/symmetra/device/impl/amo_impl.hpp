// Implementation of device/amo.hpp. Read that header for the contract.
#pragma once

#include <type_traits>
#include <utility>

#include "symmetra/core/atomic.hpp"
#include "symmetra/device/impl/check.hpp"
#include "symmetra/device/impl/remote.hpp"
#include "symmetra/device/impl/wait_core.hpp"
#include "symmetra/types.hpp"

namespace symmetra::device {

namespace detail {
// Checks the target.
template <class T>
SYMMETRA_INLINE void check_amo(const Context& ctx, const char* op, T* dest, int pe) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                "atomics act on 16-, 32- or 64-bit words");
  if (checks_on(ctx)) {
    check_remote(ctx, op, dest, sizeof(T), pe);
    check_aligned(ctx, op, dest, sizeof(T));
  }
}

// Runs `fn(AtomicRef<T>&)` on the peer word and rings the peer when the word changed; on a PE
// that is not reachable, `a` with value and cond through the transport instead.
template <class T, class Fn>
SYMMETRA_INLINE auto amo(const Context& ctx, const char* op, AmoOp a, T* dest, T value, T cond,
                         int pe, Fn&& fn) {
  check_amo(ctx, op, dest, pe);
  using R = decltype(fn(std::declval<AtomicRef<T>&>()));
  if (detail::is_remote(ctx, pe)) {
    if constexpr (std::is_void_v<R>)
      (void)remote_amo(ctx, op, a, dest, value, cond, pe);
    else
      return remote_amo(ctx, op, a, dest, value, cond, pe);
  } else {
    AtomicRef<T> ref(*ctx.peer(dest, pe));
    if constexpr (std::is_void_v<R>) {
      fn(ref);
      notify(ctx, pe, dest, sizeof(T));
    } else {
      auto old = fn(ref);
      notify(ctx, pe, dest, sizeof(T));
      return old;
    }
  }
}
}  // namespace detail

template <class T>
SYMMETRA_INLINE T atomic_fetch(const Context& ctx, const T* dest, int pe) {
  T* w = const_cast<T*>(dest);
  detail::check_amo(ctx, "atomic_fetch", w, pe);
  if (detail::is_remote(ctx, pe))
    return detail::remote_amo(ctx, "atomic_fetch", AmoOp::kFetch, w, T{}, T{}, pe);
  return detail::atomic_load(ctx.peer(w, pe), detail::kAcquire);
}

template <class T>
SYMMETRA_INLINE void atomic_set(const Context& ctx, T* dest, T value, int pe) {
  detail::amo(ctx, "atomic_set", AmoOp::kSet, dest, value, T{}, pe,
              [&](auto& r) { r.store(value, detail::kRelease); });
}

template <class T>
SYMMETRA_INLINE T atomic_swap(const Context& ctx, T* dest, T value, int pe) {
  return detail::amo(ctx, "atomic_swap", AmoOp::kSwap, dest, value, T{}, pe,
                     [&](auto& r) { return r.exchange(value, detail::kAcqRel); });
}

template <class T>
SYMMETRA_INLINE T atomic_compare_swap(const Context& ctx, T* dest, T cond, T value, int pe) {
  return detail::amo(
      ctx, "atomic_compare_swap", AmoOp::kCompareSwap, dest, value, cond, pe, [&](auto& r) {
        T expected = cond;
        r.compare_exchange_strong(expected, value, detail::kAcqRel, detail::kAcquire);
        return expected;
      });
}

template <class T>
SYMMETRA_INLINE T atomic_fetch_add(const Context& ctx, T* dest, T value, int pe) {
  return detail::amo(ctx, "atomic_fetch_add", AmoOp::kFetchAdd, dest, value, T{}, pe,
                     [&](auto& r) { return r.fetch_add(value, detail::kAcqRel); });
}

template <class T>
SYMMETRA_INLINE void atomic_add(const Context& ctx, T* dest, T value, int pe) {
  detail::amo(ctx, "atomic_add", AmoOp::kFetchAdd, dest, value, T{}, pe,
              [&](auto& r) { r.fetch_add(value, detail::kRelease); });
}

template <class T>
SYMMETRA_INLINE T atomic_fetch_inc(const Context& ctx, T* dest, int pe) {
  return detail::amo(ctx, "atomic_fetch_inc", AmoOp::kFetchAdd, dest, T{1}, T{}, pe,
                     [&](auto& r) { return r.fetch_add(T{1}, detail::kAcqRel); });
}

template <class T>
SYMMETRA_INLINE void atomic_inc(const Context& ctx, T* dest, int pe) {
  detail::amo(ctx, "atomic_inc", AmoOp::kFetchAdd, dest, T{1}, T{}, pe,
              [&](auto& r) { r.fetch_add(T{1}, detail::kRelease); });
}

template <class T>
SYMMETRA_INLINE T atomic_fetch_and(const Context& ctx, T* dest, T value, int pe) {
  return detail::amo(ctx, "atomic_fetch_and", AmoOp::kFetchAnd, dest, value, T{}, pe,
                     [&](auto& r) { return r.fetch_and(value, detail::kAcqRel); });
}
template <class T>
SYMMETRA_INLINE void atomic_and(const Context& ctx, T* dest, T value, int pe) {
  detail::amo(ctx, "atomic_and", AmoOp::kFetchAnd, dest, value, T{}, pe,
              [&](auto& r) { r.fetch_and(value, detail::kRelease); });
}
template <class T>
SYMMETRA_INLINE T atomic_fetch_or(const Context& ctx, T* dest, T value, int pe) {
  return detail::amo(ctx, "atomic_fetch_or", AmoOp::kFetchOr, dest, value, T{}, pe,
                     [&](auto& r) { return r.fetch_or(value, detail::kAcqRel); });
}
template <class T>
SYMMETRA_INLINE void atomic_or(const Context& ctx, T* dest, T value, int pe) {
  detail::amo(ctx, "atomic_or", AmoOp::kFetchOr, dest, value, T{}, pe,
              [&](auto& r) { r.fetch_or(value, detail::kRelease); });
}
template <class T>
SYMMETRA_INLINE T atomic_fetch_xor(const Context& ctx, T* dest, T value, int pe) {
  return detail::amo(ctx, "atomic_fetch_xor", AmoOp::kFetchXor, dest, value, T{}, pe,
                     [&](auto& r) { return r.fetch_xor(value, detail::kAcqRel); });
}
template <class T>
SYMMETRA_INLINE void atomic_xor(const Context& ctx, T* dest, T value, int pe) {
  detail::amo(ctx, "atomic_xor", AmoOp::kFetchXor, dest, value, T{}, pe,
              [&](auto& r) { r.fetch_xor(value, detail::kRelease); });
}

namespace detail {
// `op` as a value (types.hpp's AmoOp), for backends that run host-initiated atomics where the
// memory is: returns the old value (T{} for kSet). Bitwise operations on floating types do
// nothing: the callers reject them first.
template <class T>
SYMMETRA_INLINE T apply_amo(const Context& ctx, AmoOp op, T* dest, T value, T cond, int pe) {
  switch (op) {
    case AmoOp::kFetch:
      return atomic_fetch(ctx, dest, pe);
    case AmoOp::kSet:
      atomic_set(ctx, dest, value, pe);
      return T{};
    case AmoOp::kSwap:
      return atomic_swap(ctx, dest, value, pe);
    case AmoOp::kCompareSwap:
      return atomic_compare_swap(ctx, dest, cond, value, pe);
    case AmoOp::kFetchAdd:
      return atomic_fetch_add(ctx, dest, value, pe);
    case AmoOp::kFetchAnd:
      if constexpr (std::is_integral_v<T>) return atomic_fetch_and(ctx, dest, value, pe);
      break;
    case AmoOp::kFetchOr:
      if constexpr (std::is_integral_v<T>) return atomic_fetch_or(ctx, dest, value, pe);
      break;
    case AmoOp::kFetchXor:
      if constexpr (std::is_integral_v<T>) return atomic_fetch_xor(ctx, dest, value, pe);
      break;
  }
  return T{};
}

// `op` on the word `w` itself, where it is: how a transport that delivers by load and store (the
// loopback) runs an atomic for a remote initiator. Returns the old value (T{} for kSet).
template <class T>
SYMMETRA_INLINE T amo_on(T* w, AmoOp op, T value, T cond) {
  AtomicRef<T> r(*w);
  switch (op) {
    case AmoOp::kFetch:
      return r.load(kAcquire);
    case AmoOp::kSet:
      r.store(value, kRelease);
      return T{};
    case AmoOp::kSwap:
      return r.exchange(value, kAcqRel);
    case AmoOp::kCompareSwap:
      r.compare_exchange_strong(cond, value, kAcqRel, kAcquire);
      return cond;
    case AmoOp::kFetchAdd:
      return r.fetch_add(value, kAcqRel);
    case AmoOp::kFetchAnd:
      if constexpr (std::is_integral_v<T>) return r.fetch_and(value, kAcqRel);
      break;
    case AmoOp::kFetchOr:
      if constexpr (std::is_integral_v<T>) return r.fetch_or(value, kAcqRel);
      break;
    case AmoOp::kFetchXor:
      if constexpr (std::is_integral_v<T>) return r.fetch_xor(value, kAcqRel);
      break;
  }
  return T{};
}
}  // namespace detail

}  // namespace symmetra::device
