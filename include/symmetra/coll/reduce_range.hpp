// The inner loop of the direct reductions: elements [first, first + count) of every member's
// source, combined in team order (so every member gets bit-identical results), stored either
// into this PE's `out` or into the same elements of every member's symmetric `dest` (a push:
// remote stores are posted, where remote loads each wait a round trip).
//
// On the GPU the loop moves 16-byte packs, four per thread in flight per member: element-wise
// 4-byte loads kept a block's NVLink reads at 2 KiB in flight, which bounded a channel to a few
// GB/s. Unaligned heads, tails and element types that do not pack run the element loop.
// Threads: every thread of `g`; the ranges of different groups may run concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "symmetra/coll/reduce_op.hpp"
#include "symmetra/coll/team_collective.hpp"

namespace symmetra::coll::detail {

// Stores value v of element i (relative to first): into out[i], or into every member's dest.
template <class T>
struct RangeStore {
  T* out;   // this PE's result (nullptr for a push)
  T* dest;  // symmetric: element first + i of every member (push)
  std::size_t first;
};

template <class Group, class T>
SYMMETRA_INLINE void reduce_elements(Group g, const device::Context& ctx, const TeamView& t,
                                     const T* source, std::size_t first, std::size_t from,
                                     std::size_t count, ReduceOp op, const RangeStore<T>& st) {
  for (std::size_t i = from + static_cast<std::size_t>(g.thread_rank()); i < count;
       i += static_cast<std::size_t>(g.size())) {
    auto acc = to_accum(ctx.peer(source, t.world(0))[first + i]);
    for (int k = 1; k < t.size(); ++k)
      acc = combine(op, acc, to_accum(ctx.peer(source, t.world(k))[first + i]));
    const T v = from_accum<T>(acc);
    if (st.out != nullptr) {
      st.out[i] = v;
    } else {
      for (int k = 0; k < t.size(); ++k) ctx.peer(st.dest, t.world(k))[st.first + i] = v;
    }
  }
}

#if !SYMMETRA_DEVICE_PASS
// Elements of a block of reduce_blocks_from: 1 KiB of accumulators. 2 KiB blocks (and their
// 4 KiB frame) cost a small call 50-120 ns more, and the large ones ran slower too (two-shot,
// 2 PEs, 1 MiB: 133 us against 107).
template <class T>
inline constexpr std::size_t kHostBlock = 1024 / sizeof(typename Accum<T>::type);

// The CPU's loop: blocks of elements, each member's address translated once per block and the
// operator's switch taken once (with_op), so that each member's pass over a block is one loop the
// compiler vectorizes. reduce_elements translates and switches per element and member: 2.6 ns an
// element on 2 PEs (docs/perf_cpu.md#collectives). Same order of combining, same results.
// member(k) is where member k's elements start; result i goes to to(b)[i - b] for the block at
// b, then stored(b, values, n) sees the block's n values. With `onto`, element i starts from
// onto[i] and combines every member onto it (the put ring's partial sums).
template <class T, class Member, class To, class Stored>
inline void reduce_blocks_from(int members, const Member& member, std::size_t count, ReduceOp op,
                               const To& to, const Stored& stored, const T* onto = nullptr) {
  using A = typename Accum<T>::type;
  constexpr std::size_t kBlock = kHostBlock<T>;
  with_op(op, [&](auto o) {
    constexpr ReduceOp kOp = decltype(o)::value;
    A acc[kBlock];
    for (std::size_t b = 0; b < count; b += kBlock) {
      const std::size_t n = count - b < kBlock ? count - b : kBlock;
      const T* s = onto != nullptr ? onto + b : member(0) + b;
      for (std::size_t i = 0; i < n; ++i) acc[i] = to_accum(s[i]);
      for (int k = onto != nullptr ? 0 : 1; k < members; ++k) {
        s = member(k) + b;
        for (std::size_t i = 0; i < n; ++i) acc[i] = combine(kOp, acc[i], to_accum(s[i]));
      }
      T* const out = to(b);
      for (std::size_t i = 0; i < n; ++i) out[i] = from_accum<T>(acc[i]);
      stored(b, static_cast<const T*>(out), n);
    }
  });
}

// The block loop over the members of `t`: source[first..] of each, into st (this PE's out, or
// pushed into every member's dest).
template <class T>
inline void reduce_blocks_host(const device::Context& ctx, const TeamView& t, const T* source,
                               std::size_t first, std::size_t count, ReduceOp op,
                               const RangeStore<T>& st, const T* onto = nullptr) {
  T out[kHostBlock<T>];
  reduce_blocks_from<T>(
      t.size(), [&](int k) { return ctx.peer(source, t.world(k)) + first; }, count, op,
      [&](std::size_t b) { return st.out != nullptr ? st.out + b : out; },
      [&](std::size_t b, const T* v, std::size_t n) {
        if (st.out != nullptr) return;
        for (int k = 0; k < t.size(); ++k)
          std::memcpy(ctx.peer(st.dest, t.world(k)) + st.first + b, v, n * sizeof(T));
      },
      onto);
}
#endif

#if SYMMETRA_DEVICE_PASS
template <class T>
struct alignas(16) Pack {
  static constexpr int kElems = 16 / static_cast<int>(sizeof(T));
  T v[kElems];
};

template <class T>
__device__ __forceinline__ Pack<T> load_pack(const T* p) {
  const int4 raw = *reinterpret_cast<const int4*>(p);
  Pack<T> out;
  *reinterpret_cast<int4*>(&out) = raw;
  return out;
}

template <class T>
__device__ __forceinline__ void store_pack(T* p, const Pack<T>& v) {
  *reinterpret_cast<int4*>(p) = *reinterpret_cast<const int4*>(&v);
}

// Packs [0, vecs) of the range, 16-byte aligned everywhere: kU packs per thread per member in
// flight before they are combined.
template <class Group, class T>
__device__ __forceinline__ void reduce_packs(Group g, const device::Context& ctx, const TeamView& t,
                                             const T* source, std::size_t first, std::size_t vecs,
                                             ReduceOp op, const RangeStore<T>& st) {
  using A = typename Accum<T>::type;
  constexpr int kE = Pack<T>::kElems;
  constexpr int kU = 4;
  const std::size_t gs = static_cast<std::size_t>(g.size());
  for (std::size_t base = static_cast<std::size_t>(g.thread_rank()); base < vecs; base += gs * kU) {
    A acc[kU][kE];
    for (int k = 0; k < t.size(); ++k) {
      const T* src = ctx.peer(source, t.world(k)) + first;
      Pack<T> buf[kU];
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        const std::size_t v = base + static_cast<std::size_t>(u) * gs;
        if (v < vecs) buf[u] = load_pack(src + v * kE);
      }
#pragma unroll
      for (int u = 0; u < kU; ++u)
#pragma unroll
        for (int e = 0; e < kE; ++e)
          acc[u][e] =
              k == 0 ? to_accum(buf[u].v[e]) : combine(op, acc[u][e], to_accum(buf[u].v[e]));
    }
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const std::size_t v = base + static_cast<std::size_t>(u) * gs;
      if (v >= vecs) break;
      Pack<T> r;
#pragma unroll
      for (int e = 0; e < kE; ++e) r.v[e] = from_accum<T>(acc[u][e]);
      if (st.out != nullptr) {
        store_pack(st.out + v * kE, r);
      } else {
        for (int k = 0; k < t.size(); ++k)
          store_pack(ctx.peer(st.dest, t.world(k)) + st.first + v * kE, r);
      }
    }
  }
}
#endif

template <class Group, class T>
SYMMETRA_INLINE void reduce_range_to(Group g, const device::Context& ctx, const TeamView& t,
                                     const T* source, std::size_t first, std::size_t count,
                                     ReduceOp op, const RangeStore<T>& st) {
  std::size_t done = 0;
#if SYMMETRA_DEVICE_PASS
  if constexpr (sizeof(T) <= 16 && 16 % sizeof(T) == 0) {
    const auto a =
        reinterpret_cast<std::uintptr_t>(source + first) |
        reinterpret_cast<std::uintptr_t>(st.out != nullptr ? st.out : st.dest + st.first);
    if ((a & 15) == 0) {
      const std::size_t vecs = count / Pack<T>::kElems;
      reduce_packs(g, ctx, t, source, first, vecs, op, st);
      done = vecs * Pack<T>::kElems;
    }
  }
#else
  // Below 16 elements the element loop: the block loop's set-up cost an 8-byte one-shot 30-40 ns.
  if constexpr (std::is_same_v<Group, device::ThreadGroup>)
    if (count >= 16) return reduce_blocks_host(ctx, t, source, first, count, op, st);
#endif
  reduce_elements(g, ctx, t, source, first, done, count, op, st);
}

// out[i] = op over members of source[first + i], i < count.
template <class Group, class T>
SYMMETRA_INLINE void reduce_range(Group g, const device::Context& ctx, const TeamView& t, T* out,
                                  const T* source, std::size_t first, std::size_t count,
                                  ReduceOp op) {
  reduce_range_to(g, ctx, t, source, first, count, op, RangeStore<T>{out, nullptr, 0});
}

// dest[first + i] on every member = op over members of source[first + i], i < count. Complete at
// the members after a quiet (device::barrier).
template <class Group, class T>
SYMMETRA_INLINE void reduce_range_push(Group g, const device::Context& ctx, const TeamView& t,
                                       T* dest, const T* source, std::size_t first,
                                       std::size_t count, ReduceOp op) {
  reduce_range_to(g, ctx, t, source, first, count, op, RangeStore<T>{nullptr, dest, first});
}

}  // namespace symmetra::coll::detail
