// Device API: atomic memory operations on a peer's symmetric word (OpenSHMEM 1.5 §9.8).
//
// `dest` is a symmetric address of the calling PE naturally aligned for T; the operation acts on
// PE `pe`'s copy. Integer operations take any 32- or 64-bit integer type (16-bit works on the
// CPU); the bitwise ones are meant for unsigned types, as in the standard. fetch, set and swap
// also take float and double.
//
// Threads: each calling thread performs its own operation.
// Ordering: every operation is atomic with respect to all other atomics on the word from any PE.
// Fetching forms are acquire-release, non-fetching forms release; neither orders later puts
// (use fence() / quiet()). Non-fetching forms are visible at `pe` after quiet().
#pragma once

#include "symmetra/device/context.hpp"
#include "symmetra/types.hpp"

namespace symmetra::device {

// Operation `A` (types.hpp's AmoOp; `cond` for kCompareSwap, `value` unused for kFetch) with
// OpenSHMEM's and NVSHMEM's own ordering: atomic on the word, unordered with every other access
// (relaxed), completed by quiet(). What NVSHMEM's device forms run (nvshmem.h): on the GPU it
// saves the system-scope fence that the ordered forms below cost. Threads: the calling thread.
template <AmoOp A, class T>
SYMMETRA_INLINE T atomic_unordered(const Context& ctx, const char* op, T* dest, T value, T cond,
                                   int pe);

template <class T>
SYMMETRA_INLINE T atomic_fetch(const Context& ctx, const T* dest, int pe);
template <class T>
SYMMETRA_INLINE void atomic_set(const Context& ctx, T* dest, T value, int pe);
template <class T>
SYMMETRA_INLINE T atomic_swap(const Context& ctx, T* dest, T value, int pe);
// Stores `value` if the word equals `cond`; returns the old word either way.
template <class T>
SYMMETRA_INLINE T atomic_compare_swap(const Context& ctx, T* dest, T cond, T value, int pe);
template <class T>
SYMMETRA_INLINE T atomic_fetch_inc(const Context& ctx, T* dest, int pe);
template <class T>
SYMMETRA_INLINE void atomic_inc(const Context& ctx, T* dest, int pe);
template <class T>
SYMMETRA_INLINE T atomic_fetch_add(const Context& ctx, T* dest, T value, int pe);
template <class T>
SYMMETRA_INLINE void atomic_add(const Context& ctx, T* dest, T value, int pe);
template <class T>
SYMMETRA_INLINE T atomic_fetch_and(const Context& ctx, T* dest, T value, int pe);
template <class T>
SYMMETRA_INLINE void atomic_and(const Context& ctx, T* dest, T value, int pe);
template <class T>
SYMMETRA_INLINE T atomic_fetch_or(const Context& ctx, T* dest, T value, int pe);
template <class T>
SYMMETRA_INLINE void atomic_or(const Context& ctx, T* dest, T value, int pe);
template <class T>
SYMMETRA_INLINE T atomic_fetch_xor(const Context& ctx, T* dest, T value, int pe);
template <class T>
SYMMETRA_INLINE void atomic_xor(const Context& ctx, T* dest, T value, int pe);

}  // namespace symmetra::device

#include "symmetra/device/impl/amo_impl.hpp"
