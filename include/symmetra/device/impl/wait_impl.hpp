// Implementation of device/wait.hpp. Read that header for the contract.
//
// All forms share three scanners over the included elements; `Value` yields the comparison
// value of element i (one value for the scalar forms, values[i] for the vector forms).
#pragma once

#include "symmetra/core/atomic.hpp"
#include "symmetra/device/impl/wait_core.hpp"

namespace symmetra::device {

namespace detail {

template <class T>
struct Scalar {
  T v;
  SYMMETRA_INLINE T operator()(std::size_t) const { return v; }
};
template <class T>
struct Vector {
  const T* v;
  SYMMETRA_INLINE T operator()(std::size_t i) const { return v[i]; }
};

SYMMETRA_INLINE bool included(const int* status, std::size_t i) {
  return status == nullptr || status[i] == 0;
}

template <class T, class Value>
SYMMETRA_INLINE bool scan_all(const T* ivars, std::size_t n, const int* status, Cmp cmp, Value v) {
  for (std::size_t i = 0; i < n; ++i)
    if (included(status, i) && !compare(poll_load(&ivars[i]), cmp, v(i))) return false;
  return true;
}

// Round robin: the scan starts one past the index the PE's last _any call returned
// (HeapHeader::any_next), as OpenSHMEM programs that loop on test_any until every satisfied
// index came back once rely on; a scan from 0 would return the first index forever.
template <class T, class Value>
SYMMETRA_INLINE std::size_t scan_any(const Context& ctx, const T* ivars, std::size_t n,
                                     const int* status, Cmp cmp, Value v) {
  if (n == 0) return kNoIndex;
  std::uint64_t* next = &my_header(ctx)->any_next;
  const std::size_t start = static_cast<std::size_t>(atomic_load(next, kRelaxed) % n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = start + k < n ? start + k : start + k - n;
    if (included(status, i) && compare(poll_load(&ivars[i]), cmp, v(i))) {
      atomic_store(next, static_cast<std::uint64_t>(i + 1), kRelaxed);
      return i;
    }
  }
  return kNoIndex;
}

template <class T, class Value>
SYMMETRA_INLINE std::size_t scan_some(const T* ivars, std::size_t n, std::size_t* indices,
                                      const int* status, Cmp cmp, Value v) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (included(status, i) && compare(poll_load(&ivars[i]), cmp, v(i))) indices[count++] = i;
  return count;
}

SYMMETRA_INLINE bool none_included(std::size_t n, const int* status) {
  for (std::size_t i = 0; i < n; ++i)
    if (included(status, i)) return false;
  return true;
}

SYMMETRA_INLINE void describe_set(char* buf, unsigned n, const void* ivars, std::size_t count,
                                  const char* how) {
#if SYMMETRA_DEVICE_PASS
  (void)n;
  buf[0] = 0;
  printf("%s of %llu words at %p: ", how, static_cast<unsigned long long>(count), ivars);
#else
  snprintf(buf, n, "%s of %llu words at %p", how, static_cast<unsigned long long>(count), ivars);
#endif
}

template <class T, class Value>
SYMMETRA_INLINE void wait_all(const Context& ctx, const T* ivars, std::size_t n, const int* status,
                              Cmp cmp, Value v) {
  wait_for(
      ctx, "wait_until_all", ivars, ivars + n, [&] { return scan_all(ivars, n, status, cmp, v); },
      [&](char* b, unsigned m) { describe_set(b, m, ivars, n, "all"); });
}

template <class T, class Value>
SYMMETRA_INLINE std::size_t wait_any(const Context& ctx, const T* ivars, std::size_t n,
                                     const int* status, Cmp cmp, Value v) {
  if (none_included(n, status)) return kNoIndex;
  std::size_t found = kNoIndex;
  wait_for(
      ctx, "wait_until_any", ivars, ivars + n,
      [&] { return (found = scan_any(ctx, ivars, n, status, cmp, v)) != kNoIndex; },
      [&](char* b, unsigned m) { describe_set(b, m, ivars, n, "any"); });
  return found;
}

template <class T, class Value>
SYMMETRA_INLINE std::size_t wait_some(const Context& ctx, const T* ivars, std::size_t n,
                                      std::size_t* indices, const int* status, Cmp cmp, Value v) {
  if (none_included(n, status)) return 0;
  std::size_t count = 0;
  wait_for(
      ctx, "wait_until_some", ivars, ivars + n,
      [&] { return (count = scan_some(ivars, n, indices, status, cmp, v)) != 0; },
      [&](char* b, unsigned m) { describe_set(b, m, ivars, n, "some"); });
  return count;
}

}  // namespace detail

template <class T>
SYMMETRA_INLINE void wait_until(const Context& ctx, const T* ivar, Cmp cmp, T value) {
  if (detail::checks_on(ctx)) detail::check_aligned(ctx, "wait_until", ivar, sizeof(T));
  detail::wait_value(ctx, "wait_until", ivar, cmp, value);
}
template <class T>
SYMMETRA_INLINE void wait_until_all(const Context& ctx, const T* ivars, std::size_t n,
                                    const int* status, Cmp cmp, T value) {
  detail::wait_all(ctx, ivars, n, status, cmp, detail::Scalar<T>{value});
}
template <class T>
SYMMETRA_INLINE std::size_t wait_until_any(const Context& ctx, const T* ivars, std::size_t n,
                                           const int* status, Cmp cmp, T value) {
  return detail::wait_any(ctx, ivars, n, status, cmp, detail::Scalar<T>{value});
}
template <class T>
SYMMETRA_INLINE std::size_t wait_until_some(const Context& ctx, const T* ivars, std::size_t n,
                                            std::size_t* indices, const int* status, Cmp cmp,
                                            T value) {
  return detail::wait_some(ctx, ivars, n, indices, status, cmp, detail::Scalar<T>{value});
}
template <class T>
SYMMETRA_INLINE void wait_until_all_vector(const Context& ctx, const T* ivars, std::size_t n,
                                           const int* status, Cmp cmp, const T* values) {
  detail::wait_all(ctx, ivars, n, status, cmp, detail::Vector<T>{values});
}
template <class T>
SYMMETRA_INLINE std::size_t wait_until_any_vector(const Context& ctx, const T* ivars, std::size_t n,
                                                  const int* status, Cmp cmp, const T* values) {
  return detail::wait_any(ctx, ivars, n, status, cmp, detail::Vector<T>{values});
}
template <class T>
SYMMETRA_INLINE std::size_t wait_until_some_vector(const Context& ctx, const T* ivars,
                                                   std::size_t n, std::size_t* indices,
                                                   const int* status, Cmp cmp, const T* values) {
  return detail::wait_some(ctx, ivars, n, indices, status, cmp, detail::Vector<T>{values});
}

namespace detail {
// A test that succeeded orders what follows after the writes it saw (GPU: one fence).
SYMMETRA_INLINE bool acquired(bool ok) {
  if (ok) acquire_after_poll();
  return ok;
}
SYMMETRA_INLINE std::size_t acquired_index(std::size_t i) {
  if (i != kNoIndex) acquire_after_poll();
  return i;
}
SYMMETRA_INLINE std::size_t acquired_count(std::size_t c) {
  if (c != 0) acquire_after_poll();
  return c;
}
}  // namespace detail

template <class T>
SYMMETRA_INLINE bool test(const Context&, const T* ivar, Cmp cmp, T value) {
  return detail::acquired(detail::compare(detail::poll_load(ivar), cmp, value));
}
template <class T>
SYMMETRA_INLINE bool test_all(const Context&, const T* ivars, std::size_t n, const int* status,
                              Cmp cmp, T value) {
  return detail::acquired(detail::scan_all(ivars, n, status, cmp, detail::Scalar<T>{value}));
}
template <class T>
SYMMETRA_INLINE std::size_t test_any(const Context& ctx, const T* ivars, std::size_t n,
                                     const int* status, Cmp cmp, T value) {
  return detail::acquired_index(
      detail::scan_any(ctx, ivars, n, status, cmp, detail::Scalar<T>{value}));
}
template <class T>
SYMMETRA_INLINE std::size_t test_some(const Context&, const T* ivars, std::size_t n,
                                      std::size_t* indices, const int* status, Cmp cmp, T value) {
  return detail::acquired_count(
      detail::scan_some(ivars, n, indices, status, cmp, detail::Scalar<T>{value}));
}
template <class T>
SYMMETRA_INLINE bool test_all_vector(const Context&, const T* ivars, std::size_t n,
                                     const int* status, Cmp cmp, const T* values) {
  return detail::acquired(detail::scan_all(ivars, n, status, cmp, detail::Vector<T>{values}));
}
template <class T>
SYMMETRA_INLINE std::size_t test_any_vector(const Context& ctx, const T* ivars, std::size_t n,
                                            const int* status, Cmp cmp, const T* values) {
  return detail::acquired_index(
      detail::scan_any(ctx, ivars, n, status, cmp, detail::Vector<T>{values}));
}
template <class T>
SYMMETRA_INLINE std::size_t test_some_vector(const Context&, const T* ivars, std::size_t n,
                                             std::size_t* indices, const int* status, Cmp cmp,
                                             const T* values) {
  return detail::acquired_count(
      detail::scan_some(ivars, n, indices, status, cmp, detail::Vector<T>{values}));
}

}  // namespace symmetra::device
