// Device API: point-to-point synchronization on local symmetric words (OpenSHMEM 1.5 §9.10).
//
// `ivar` / `ivars` are this PE's own symmetric words that other PEs update with p, put, atomics
// or put_signal. `status` (may be null) excludes element i from the set when status[i] != 0.
// The _vector forms compare element i with values[i].
//
// Threads: the calling thread. Ordering: every read is an acquire, so data a writer ordered
// before its update (fence, put_signal, release atomics) is visible once the wait returns.
// Every wait is bounded by the context's timeout and then ends the job with a diagnostic.
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/device/context.hpp"
#include "symmetra/types.hpp"

namespace symmetra::device {

inline constexpr std::size_t kNoIndex = ~std::size_t{0};  // SIZE_MAX: "none" for _any

// Waits until `*ivar <cmp> value`.
template <class T>
SYMMETRA_INLINE void wait_until(const Context& ctx, const T* ivar, Cmp cmp, T value);
// Waits until every included element satisfies the comparison.
template <class T>
SYMMETRA_INLINE void wait_until_all(const Context& ctx, const T* ivars, std::size_t n,
                                    const int* status, Cmp cmp, T value);
// Waits until one included element satisfies it; returns its index, kNoIndex if none included.
template <class T>
SYMMETRA_INLINE std::size_t wait_until_any(const Context& ctx, const T* ivars, std::size_t n,
                                           const int* status, Cmp cmp, T value);
// Waits until at least one included element satisfies it; writes all satisfied indices to
// `indices` and returns their count (0 if none included).
template <class T>
SYMMETRA_INLINE std::size_t wait_until_some(const Context& ctx, const T* ivars, std::size_t n,
                                            std::size_t* indices, const int* status, Cmp cmp,
                                            T value);
template <class T>
SYMMETRA_INLINE void wait_until_all_vector(const Context& ctx, const T* ivars, std::size_t n,
                                           const int* status, Cmp cmp, const T* values);
template <class T>
SYMMETRA_INLINE std::size_t wait_until_any_vector(const Context& ctx, const T* ivars, std::size_t n,
                                                  const int* status, Cmp cmp, const T* values);
template <class T>
SYMMETRA_INLINE std::size_t wait_until_some_vector(const Context& ctx, const T* ivars,
                                                   std::size_t n, std::size_t* indices,
                                                   const int* status, Cmp cmp, const T* values);

// Non-blocking tests: the same conditions, evaluated once.
template <class T>
SYMMETRA_INLINE bool test(const Context& ctx, const T* ivar, Cmp cmp, T value);
template <class T>
SYMMETRA_INLINE bool test_all(const Context& ctx, const T* ivars, std::size_t n, const int* status,
                              Cmp cmp, T value);
template <class T>
SYMMETRA_INLINE std::size_t test_any(const Context& ctx, const T* ivars, std::size_t n,
                                     const int* status, Cmp cmp, T value);
template <class T>
SYMMETRA_INLINE std::size_t test_some(const Context& ctx, const T* ivars, std::size_t n,
                                      std::size_t* indices, const int* status, Cmp cmp, T value);
template <class T>
SYMMETRA_INLINE bool test_all_vector(const Context& ctx, const T* ivars, std::size_t n,
                                     const int* status, Cmp cmp, const T* values);
template <class T>
SYMMETRA_INLINE std::size_t test_any_vector(const Context& ctx, const T* ivars, std::size_t n,
                                            const int* status, Cmp cmp, const T* values);
template <class T>
SYMMETRA_INLINE std::size_t test_some_vector(const Context& ctx, const T* ivars, std::size_t n,
                                             std::size_t* indices, const int* status, Cmp cmp,
                                             const T* values);

}  // namespace symmetra::device

#include "symmetra/device/impl/wait_impl.hpp"
