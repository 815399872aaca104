// Device API: put-with-signal and signal waits (OpenSHMEM 1.5 §9.6).
//
// A signal is a uint64_t symmetric word. put_signal delivers the data and then updates the
// signal on the same PE; a PE that sees the update with signal_wait_until (or signal_fetch) also
// sees the data.
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/device/context.hpp"
#include "symmetra/device/group.hpp"
#include "symmetra/types.hpp"

namespace symmetra::device {

// Puts `bytes` to `dest` on `pe`, then applies `op` with `value` to `sig` on `pe`.
// Threads: every thread of `g`. Ordering: data before signal (release on the signal update);
// the signal update is atomic. Local completion on return.
template <class Group>
SYMMETRA_INLINE void putmem_signal(Group g, const Context& ctx, void* dest, const void* src,
                                   std::size_t bytes, std::uint64_t* sig, std::uint64_t value,
                                   SignalOp op, int pe);
template <class Group, class T>
SYMMETRA_INLINE void put_signal(Group g, const Context& ctx, T* dest, const T* src, std::size_t n,
                                std::uint64_t* sig, std::uint64_t value, SignalOp op, int pe);
// Non-blocking form. Threads: every thread of `g`. Ordering: as putmem_signal.
template <class Group>
SYMMETRA_INLINE void putmem_signal_nbi(Group g, const Context& ctx, void* dest, const void* src,
                                       std::size_t bytes, std::uint64_t* sig, std::uint64_t value,
                                       SignalOp op, int pe);

// Reads this PE's signal word. Threads: the calling thread. Ordering: acquire.
SYMMETRA_INLINE std::uint64_t signal_fetch(const Context& ctx, const std::uint64_t* sig);

// Waits until `*sig <cmp> value` on this PE and returns the signal's value.
// Threads: the calling thread. Ordering: acquire; bounded by the context's timeout.
SYMMETRA_INLINE std::uint64_t signal_wait_until(const Context& ctx, const std::uint64_t* sig,
                                                Cmp cmp, std::uint64_t value);

}  // namespace symmetra::device

#include "symmetra/device/impl/signal_impl.hpp"
