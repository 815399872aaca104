// Reduction operators of the collectives (OpenSHMEM 1.5 §9.9.7): sum, prod, min, max on every
// arithmetic type, half and bfloat16; and, or, xor on integer types.
//
// Values combine in an accumulator type: the type itself, except float for half and bfloat16
// (rounded once at the end). Signed integers wrap like unsigned ones instead of overflowing.
// Every PE combines in team order, so all PEs compute bit-identical results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "symmetra/core/float16.hpp"
#include "symmetra/core/platform.hpp"

namespace symmetra::coll {

enum class ReduceOp : int { kSum, kProd, kMin, kMax, kAnd, kOr, kXor };

namespace detail {
// Whether a reduction's dest and source bytes share any byte (its in-place forms): the device
// forms refuse that, and the host forms take a temporary for it. Empty ranges share none.
SYMMETRA_INLINE bool ranges_overlap(const void* dest, std::size_t dest_bytes, const void* source,
                                    std::size_t source_bytes) {
  const auto d = reinterpret_cast<std::uintptr_t>(dest);
  const auto s = reinterpret_cast<std::uintptr_t>(source);
  return d < s + source_bytes && s < d + dest_bytes;
}
}  // namespace detail

template <class T>
struct Accum {
  using type = T;
};
template <>
struct Accum<half> {
  using type = float;
};
template <>
struct Accum<bfloat16> {
  using type = float;
};

template <class T>
SYMMETRA_INLINE typename Accum<T>::type to_accum(T v) {
  return static_cast<typename Accum<T>::type>(v);
}

template <class T>
SYMMETRA_INLINE T from_accum(typename Accum<T>::type v) {
  return static_cast<T>(v);
}

// a <op> b in the accumulator type A.
template <class A>
SYMMETRA_INLINE A combine(ReduceOp op, A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    using U = std::make_unsigned_t<A>;
    switch (op) {
      case ReduceOp::kSum:
        return static_cast<A>(static_cast<U>(a) + static_cast<U>(b));
      case ReduceOp::kProd:
        return static_cast<A>(static_cast<U>(a) * static_cast<U>(b));
      case ReduceOp::kMin:
        return b < a ? b : a;
      case ReduceOp::kMax:
        return b > a ? b : a;
      case ReduceOp::kAnd:
        return a & b;
      case ReduceOp::kOr:
        return a | b;
      case ReduceOp::kXor:
        return a ^ b;
    }
  } else {
    switch (op) {
      case ReduceOp::kSum:
        return a + b;
      case ReduceOp::kProd:
        return a * b;
      case ReduceOp::kMin:
        return b < a ? b : a;
      case ReduceOp::kMax:
        return b > a ? b : a;
      default:
        break;  // bitwise operators are rejected for floating types by the callers
    }
  }
  return a;
}

// Calls f(std::integral_constant<ReduceOp, op>{}): a loop inside f then combines with the
// operator known at compile time, its switch out of the loop.
template <class F>
SYMMETRA_INLINE void with_op(ReduceOp op, F&& f) {
  switch (op) {
    case ReduceOp::kSum:
      return f(std::integral_constant<ReduceOp, ReduceOp::kSum>{});
    case ReduceOp::kProd:
      return f(std::integral_constant<ReduceOp, ReduceOp::kProd>{});
    case ReduceOp::kMin:
      return f(std::integral_constant<ReduceOp, ReduceOp::kMin>{});
    case ReduceOp::kMax:
      return f(std::integral_constant<ReduceOp, ReduceOp::kMax>{});
    case ReduceOp::kAnd:
      return f(std::integral_constant<ReduceOp, ReduceOp::kAnd>{});
    case ReduceOp::kOr:
      return f(std::integral_constant<ReduceOp, ReduceOp::kOr>{});
    case ReduceOp::kXor:
      return f(std::integral_constant<ReduceOp, ReduceOp::kXor>{});
  }
}

SYMMETRA_INLINE constexpr bool is_bitwise(ReduceOp op) {
  return op == ReduceOp::kAnd || op == ReduceOp::kOr || op == ReduceOp::kXor;
}

// True when `op` is defined for T (bitwise operators need integers). Where it is not, the
// algorithms and the runtime's check (runtime/collective.cpp) say op_undefined_text(): a function,
// so that device code has the literal too.
template <class T>
SYMMETRA_INLINE constexpr bool op_defined(ReduceOp op) {
  return std::is_integral_v<T> || !is_bitwise(op);
}
SYMMETRA_INLINE constexpr const char* op_undefined_text() {
  return "bitwise reductions need an integer type";
}

}  // namespace symmetra::coll
