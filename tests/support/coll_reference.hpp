// Independent references for the collective tests: data every PE can recompute, and reductions
// computed exactly (integers, modulo 2^bits) or in float64 (floating point) with a tolerance.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

#include "support/pe_runner.hpp"
#include "symmetra/coll/reduce_op.hpp"

// ASSERT_EQ for checks of every element: gtest's macros build an AssertionResult on every call,
// which in CI's unoptimized tests cost more than the collective under test. This compares first
// and builds it only for a failure (the operands are evaluated again then: no side effects).
#define SYMMETRA_ASSERT_EQ(a, b) \
  if ((a) == (b)) {              \
  } else                         \
    ASSERT_EQ(a, b)
// The same for ASSERT_NEAR (a NaN fails, as there).
#define SYMMETRA_ASSERT_NEAR(a, b, tol) \
  if (std::abs((a) - (b)) <= (tol)) {   \
  } else                                \
    ASSERT_NEAR(a, b, tol)

namespace symmetra::testing {

using coll::ReduceOp;

// The references run per element, on every PE, for every member's data, and CI's main tests
// build unoptimized (AddressSanitizer's tree), where they took much of the collective tests'
// time (docs/testing.md#where-the-test-time-goes). So the functions down to exact_sum are
// optimized in any GCC build (still instrumented by a sanitizer).
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && !defined(__OPTIMIZE__)
#pragma GCC push_options
#pragma GCC optimize("O2")
#define SYMMETRA_TEST_REFERENCE_OPTIMIZED 1
#endif

// Value i of team member `rank`'s data in call `call`: recomputable by every PE, never all zero.
inline std::uint64_t mix(std::uint64_t call, int rank, std::uint64_t i, std::uint64_t salt = 0) {
  static const std::uint64_t seed = run_seed();  // once: run_seed is out of line
  std::uint64_t x = seed ^ (call * 0x9e3779b97f4a7c15ull) ^
                    (static_cast<std::uint64_t>(rank) << 40) ^ (i << 8) ^ salt;
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 29;
  return x | 1;
}

template <class T>
T make(std::uint64_t bits, ReduceOp op) {
  if constexpr (std::is_integral_v<T>) {
    if (op == ReduceOp::kProd) return static_cast<T>(bits % 7 + 1);  // keep products from vanishing
    return static_cast<T>(bits);
  } else {
    const double u = static_cast<double>(bits % 2000001) / 1000000.0 - 1.0;  // [-1, 1]
    const double x = op == ReduceOp::kProd ? 1.0 + u / 16 : u * 100;
    return static_cast<T>(static_cast<float>(x));
  }
}

template <class T>
double as_double(T v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

// Independent reference over members' values: exact (mod 2^bits) for integers, float64 otherwise.
template <class T>
double reference(ReduceOp op, const std::vector<T>& vals, std::uint64_t* exact) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    U acc = static_cast<U>(vals[0]);
    T lo = vals[0], hi = vals[0];
    for (std::size_t k = 1; k < vals.size(); ++k) {
      const U x = static_cast<U>(vals[k]);
      switch (op) {
        case ReduceOp::kSum:
          acc = static_cast<U>(acc + x);
          break;
        case ReduceOp::kProd:
          acc = static_cast<U>(acc * x);
          break;
        case ReduceOp::kAnd:
          acc &= x;
          break;
        case ReduceOp::kOr:
          acc |= x;
          break;
        case ReduceOp::kXor:
          acc ^= x;
          break;
        default:
          break;
      }
      lo = std::min(lo, vals[k]);
      hi = std::max(hi, vals[k]);
    }
    if (op == ReduceOp::kMin) acc = static_cast<U>(lo);
    if (op == ReduceOp::kMax) acc = static_cast<U>(hi);
    *exact = static_cast<std::uint64_t>(acc);
    return 0;
  } else {
    double acc = as_double(vals[0]);
    for (std::size_t k = 1; k < vals.size(); ++k) {
      const double x = as_double(vals[k]);
      if (op == ReduceOp::kSum) acc += x;
      if (op == ReduceOp::kProd) acc *= x;
      if (op == ReduceOp::kMin) acc = std::min(acc, x);
      if (op == ReduceOp::kMax) acc = std::max(acc, x);
    }
    return acc;
  }
}

template <class T>
double tolerance(double ref, int members) {
  double eps = 1e-15;
  if constexpr (std::is_same_v<T, float>) eps = 1.2e-7;
  if constexpr (std::is_same_v<T, half>) eps = 1e-3;  // one rounding to half (2^-11) + float sums
  if constexpr (std::is_same_v<T, bfloat16>) eps = 8e-3;          // 2^-8, one rounding
  const double scale = std::max(std::abs(ref), 100.0 * members);  // sums of values up to 100
  return eps * scale * (std::is_same_v<T, float> ? members : 1) + 1e-30;
}

// Member `pe`'s element i where a test needs float sums that are exact in any order (the
// algorithms add in different orders): multiples of 1/8 below 128.
inline float exact_value(int pe, std::size_t i) {
  return static_cast<float>((i * 7 + static_cast<std::size_t>(pe) * 13) % 1024) / 8.0f;
}

// The sum of exact_value(r, i) over members 0 .. members-1: exact in any order.
inline float exact_sum(int members, std::size_t i) {
  float s = 0;
  for (int r = 0; r < members; ++r) s += exact_value(r, i);
  return s;
}

#if defined(SYMMETRA_TEST_REFERENCE_OPTIMIZED)
#pragma GCC pop_options
#undef SYMMETRA_TEST_REFERENCE_OPTIMIZED
#endif

// Runs `body(team)` on the world team, then on the members of {1, 3, 5, ...}. Buffers must be
// allocated before (allocation is collective over the world).
inline void for_each_team(Runtime& rt, const std::function<void(const Team&)>& body) {
  body(rt.team_world());
  if (rt.n_pes() >= 2) {
    Team odd = rt.split_strided(rt.team_world(), 1, 2, rt.n_pes() / 2);
    if (odd.valid()) {
      body(odd);
      rt.destroy(odd);
    }
  }
  rt.barrier_all();
}

}  // namespace symmetra::testing
