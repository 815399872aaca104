// Implementation of device/amo.hpp. Read that header for the contract.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "symmetra/core/atomic.hpp"
#include "symmetra/data_type.hpp"
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

// Operation A on the word `w` itself, where it is. Fetch: the old value is wanted, and the order
// is acquire-release (fetch: acquire); else release, and the value returned is meaningless.
// Returns the old value (T{} for kSet).
// Ordered: the forms' documented acquire-release (fetching) or release (not); else relaxed.
template <AmoOp A, bool Fetch, class T, bool Ordered = true>
SYMMETRA_INLINE T amo_word(T* w, T value, T cond) {
  AtomicRef<T> r(*w);
  constexpr symmetra::detail::MemoryOrder order = !Ordered ? kRelaxed : Fetch ? kAcqRel : kRelease;
  constexpr symmetra::detail::MemoryOrder load = Ordered ? kAcquire : kRelaxed;
  if constexpr (A == AmoOp::kFetch) {
    return r.load(load);
  } else if constexpr (A == AmoOp::kSet) {
    r.store(value, Ordered ? kRelease : kRelaxed);
    return T{};
  } else if constexpr (A == AmoOp::kSwap) {
    return r.exchange(value, Ordered ? kAcqRel : kRelaxed);
  } else if constexpr (A == AmoOp::kCompareSwap) {
    r.compare_exchange_strong(cond, value, Ordered ? kAcqRel : kRelaxed, load);
    return cond;
  } else if constexpr (A == AmoOp::kFetchAdd) {
    return r.fetch_add(value, order);
  } else {
    static_assert(std::is_integral_v<T>, "bitwise atomics act on integer words");
    if constexpr (A == AmoOp::kFetchAnd) return r.fetch_and(value, order);
    if constexpr (A == AmoOp::kFetchOr) return r.fetch_or(value, order);
    if constexpr (A == AmoOp::kFetchXor) return r.fetch_xor(value, order);
  }
}

// The local branch: A on `w`, PE pe's copy of `dest`, then the ring for a sleeper on it. The
// host forms enter here with the word that their check translated (runtime.hpp).
template <AmoOp A, bool Fetch, class T, bool Ordered = true>
SYMMETRA_INLINE T amo_at(const Context& ctx, T* w, T* dest, T value, T cond, int pe) {
  const T old = amo_word<A, Fetch, T, Ordered>(w, value, cond);
  if constexpr (A != AmoOp::kFetch) notify(ctx, pe, dest, sizeof(T));
  return old;
}

template <AmoOp A, bool Fetch, class T, bool Ordered = true>
SYMMETRA_INLINE T amo(const Context& ctx, const char* op, T* dest, T value, T cond, int pe) {
  check_amo(ctx, op, dest, pe);
  if (is_remote(ctx, pe)) return remote_amo(ctx, op, A, dest, value, cond, pe);
  return amo_at<A, Fetch, T, Ordered>(ctx, ctx.peer(dest, pe), dest, value, cond, pe);
}
}  // namespace detail

template <AmoOp A, class T>
SYMMETRA_INLINE T atomic_unordered(const Context& ctx, const char* op, T* dest, T value, T cond,
                                   int pe) {
  return detail::amo<A, true, T, false>(ctx, op, dest, value, cond, pe);
}

template <class T>
SYMMETRA_INLINE T atomic_fetch(const Context& ctx, const T* dest, int pe) {
  return detail::amo<AmoOp::kFetch, true>(ctx, "atomic_fetch", const_cast<T*>(dest), T{}, T{}, pe);
}
template <class T>
SYMMETRA_INLINE void atomic_set(const Context& ctx, T* dest, T value, int pe) {
  (void)detail::amo<AmoOp::kSet, false>(ctx, "atomic_set", dest, value, T{}, pe);
}
template <class T>
SYMMETRA_INLINE T atomic_swap(const Context& ctx, T* dest, T value, int pe) {
  return detail::amo<AmoOp::kSwap, true>(ctx, "atomic_swap", dest, value, T{}, pe);
}
template <class T>
SYMMETRA_INLINE T atomic_compare_swap(const Context& ctx, T* dest, T cond, T value, int pe) {
  return detail::amo<AmoOp::kCompareSwap, true>(ctx, "atomic_compare_swap", dest, value, cond, pe);
}
template <class T>
SYMMETRA_INLINE T atomic_fetch_inc(const Context& ctx, T* dest, int pe) {
  return detail::amo<AmoOp::kFetchAdd, true>(ctx, "atomic_fetch_inc", dest, T{1}, T{}, pe);
}
template <class T>
SYMMETRA_INLINE void atomic_inc(const Context& ctx, T* dest, int pe) {
  (void)detail::amo<AmoOp::kFetchAdd, false>(ctx, "atomic_inc", dest, T{1}, T{}, pe);
}
template <class T>
SYMMETRA_INLINE T atomic_fetch_add(const Context& ctx, T* dest, T value, int pe) {
  return detail::amo<AmoOp::kFetchAdd, true>(ctx, "atomic_fetch_add", dest, value, T{}, pe);
}
template <class T>
SYMMETRA_INLINE void atomic_add(const Context& ctx, T* dest, T value, int pe) {
  (void)detail::amo<AmoOp::kFetchAdd, false>(ctx, "atomic_add", dest, value, T{}, pe);
}
template <class T>
SYMMETRA_INLINE T atomic_fetch_and(const Context& ctx, T* dest, T value, int pe) {
  return detail::amo<AmoOp::kFetchAnd, true>(ctx, "atomic_fetch_and", dest, value, T{}, pe);
}
template <class T>
SYMMETRA_INLINE void atomic_and(const Context& ctx, T* dest, T value, int pe) {
  (void)detail::amo<AmoOp::kFetchAnd, false>(ctx, "atomic_and", dest, value, T{}, pe);
}
template <class T>
SYMMETRA_INLINE T atomic_fetch_or(const Context& ctx, T* dest, T value, int pe) {
  return detail::amo<AmoOp::kFetchOr, true>(ctx, "atomic_fetch_or", dest, value, T{}, pe);
}
template <class T>
SYMMETRA_INLINE void atomic_or(const Context& ctx, T* dest, T value, int pe) {
  (void)detail::amo<AmoOp::kFetchOr, false>(ctx, "atomic_or", dest, value, T{}, pe);
}
template <class T>
SYMMETRA_INLINE T atomic_fetch_xor(const Context& ctx, T* dest, T value, int pe) {
  return detail::amo<AmoOp::kFetchXor, true>(ctx, "atomic_fetch_xor", dest, value, T{}, pe);
}
template <class T>
SYMMETRA_INLINE void atomic_xor(const Context& ctx, T* dest, T value, int pe) {
  (void)detail::amo<AmoOp::kFetchXor, false>(ctx, "atomic_xor", dest, value, T{}, pe);
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
  switch (op) {
    case AmoOp::kFetch:
      return amo_word<AmoOp::kFetch, true>(w, value, cond);
    case AmoOp::kSet:
      return amo_word<AmoOp::kSet, true>(w, value, cond);
    case AmoOp::kSwap:
      return amo_word<AmoOp::kSwap, true>(w, value, cond);
    case AmoOp::kCompareSwap:
      return amo_word<AmoOp::kCompareSwap, true>(w, value, cond);
    case AmoOp::kFetchAdd:
      return amo_word<AmoOp::kFetchAdd, true>(w, value, cond);
    case AmoOp::kFetchAnd:
      if constexpr (std::is_integral_v<T>) return amo_word<AmoOp::kFetchAnd, true>(w, value, cond);
      break;
    case AmoOp::kFetchOr:
      if constexpr (std::is_integral_v<T>) return amo_word<AmoOp::kFetchOr, true>(w, value, cond);
      break;
    case AmoOp::kFetchXor:
      if constexpr (std::is_integral_v<T>) return amo_word<AmoOp::kFetchXor, true>(w, value, cond);
      break;
  }
  return T{};
}

#if !SYMMETRA_DEVICE_PASS
// amo_on for a word of runtime `type` at `w`, the operands and the old value as the word's bits
// in their low bytes: how a transport applies an atomic that a message asked for. 8-bit words
// and floating types' bitwise operations do nothing and return 0 (the API has none).
inline std::uint64_t amo_on_bits(void* w, AmoOp op, DataType type, std::uint64_t value,
                                 std::uint64_t cond) {
  return visit_type(type, [&](auto tag) -> std::uint64_t {
    using T = typename decltype(tag)::type;
    if constexpr (sizeof(T) == 1 || !std::is_arithmetic_v<T>) {
      return 0;
    } else {
      T v, c;
      std::memcpy(&v, &value, sizeof(T));
      std::memcpy(&c, &cond, sizeof(T));
      const T r = amo_on(static_cast<T*>(w), op, v, c);
      std::uint64_t bits = 0;
      std::memcpy(&bits, &r, sizeof(T));
      return bits;
    }
  });
}
#endif
}  // namespace detail

}  // namespace symmetra::device
