// Device API: one-sided put and get (OpenSHMEM 1.5 §9.5).
//
// Every address argument named `dest` (put) or `src` (get) is a symmetric address of the calling
// PE; the operation reaches the same object on PE `pe`. The other buffer is any local memory.
// On a PE of this host the transfer is done with loads and stores through the mapped heap.
//
// Completion (docs/memory_model.md): put returns when `src` may be reused; the data is visible at
// `pe` after quiet() (or a barrier). get returns when the data has arrived. The _nbi forms may
// return earlier; quiet() completes them. fence() orders puts to one PE.
#pragma once

#include <cstddef>

#include "symmetra/device/context.hpp"
#include "symmetra/device/group.hpp"

namespace symmetra::device {

// Copies `bytes` from local `src` to `dest` on `pe`.
// Threads: every thread of `g`, same arguments. Ordering: visible at `pe` after quiet().
template <class Group>
SYMMETRA_INLINE void putmem(Group g, const Context& ctx, void* dest, const void* src,
                            std::size_t bytes, int pe);

// Copies `bytes` from `src` on `pe` to local `dest`.
// Threads: every thread of `g`, same arguments. Ordering: complete (data in `dest`) on return.
template <class Group>
SYMMETRA_INLINE void getmem(Group g, const Context& ctx, void* dest, const void* src,
                            std::size_t bytes, int pe);

// Typed forms: `n` elements of T.
// Threads: every thread of `g`. Ordering: as putmem / getmem.
template <class Group, class T>
SYMMETRA_INLINE void put(Group g, const Context& ctx, T* dest, const T* src, std::size_t n, int pe);
template <class Group, class T>
SYMMETRA_INLINE void get(Group g, const Context& ctx, T* dest, const T* src, std::size_t n, int pe);

// Non-blocking forms. Threads: every thread of `g`. Ordering: complete after quiet().
template <class Group>
SYMMETRA_INLINE void putmem_nbi(Group g, const Context& ctx, void* dest, const void* src,
                                std::size_t bytes, int pe);
template <class Group>
SYMMETRA_INLINE void getmem_nbi(Group g, const Context& ctx, void* dest, const void* src,
                                std::size_t bytes, int pe);
template <class Group, class T>
SYMMETRA_INLINE void put_nbi(Group g, const Context& ctx, T* dest, const T* src, std::size_t n,
                             int pe);
template <class Group, class T>
SYMMETRA_INLINE void get_nbi(Group g, const Context& ctx, T* dest, const T* src, std::size_t n,
                             int pe);

// Single element: dest on `pe` = value. Threads: the calling thread.
// Ordering: a release store; visible at `pe` after quiet(), ordered after earlier puts by fence().
template <class T>
SYMMETRA_INLINE void p(const Context& ctx, T* dest, T value, int pe);

// Single element read of `src` on `pe`. Threads: the calling thread. Ordering: complete on return.
template <class T>
SYMMETRA_INLINE T g(const Context& ctx, const T* src, int pe);
// The same read without the acquire (OpenSHMEM's and NVSHMEM's g: unordered with later
// accesses), which on the GPU saves a system-scope fence, and on the GPU a plain load, as
// NVSHMEM's: polling a word with it may never see a change (wait_until polls). What NVSHMEM's
// device forms run.
template <class T>
SYMMETRA_INLINE T g_unordered(const Context& ctx, const T* src, int pe);

// Strided: dest[i * dst_stride] on `pe` = src[i * src_stride] for i < n (strides in elements).
// Threads: every thread of `grp`. Ordering: as put.
template <class Group, class T>
SYMMETRA_INLINE void iput(Group grp, const Context& ctx, T* dest, const T* src,
                          std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride, std::size_t n,
                          int pe);
// Strided get: dest[i * dst_stride] = src[i * src_stride] on `pe`. Ordering: as get.
template <class Group, class T>
SYMMETRA_INLINE void iget(Group grp, const Context& ctx, T* dest, const T* src,
                          std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride, std::size_t n,
                          int pe);

// A direct pointer to `pe`'s copy of symmetric `p`, or null when `pe` is not reachable by loads
// and stores. Threads: any. Ordering: none; plain accesses through it follow the memory model
// of the hardware.
template <class T>
SYMMETRA_INLINE T* ptr(const Context& ctx, T* p, int pe);

}  // namespace symmetra::device

#include "symmetra/device/impl/rma_impl.hpp"
