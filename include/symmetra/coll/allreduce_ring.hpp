// All-reduce around a ring, for large messages where links, not memory, limit: the message is
// cut into one chunk per member; a reduce-scatter pass (m-1 steps) leaves member r with chunk
// r+1 complete, then an all-gather pass (m-1 steps) hands the chunks on. In each step member r
// reads one chunk from member r-1's dest (its predecessor finished that chunk in the previous
// step and said so by a signal), so every link carries 2(m-1)/m of the message.
//
// Step s of the reduce-scatter: member r sets dest[c] = dest_{r-1}[c] (source_{r-1}[c] at s = 0)
// combined with its source[c], c = (r - s - 1) mod m. Step s of the all-gather copies chunk
// (r - s) mod m from dest_{r-1}. Each chunk is reduced once, so members agree bit for bit.
// Protocol: a sync first (sources written, last call's reads done), the predecessor's signals
// on chunk_signal (2(m-1) per call, running total in chunk_base), a sync between the passes
// (no all-gather write lands on a chunk still being read as a partial), and a sync last.
// In place (dest == source): member r writes each chunk once in the reduce-scatter, reading its
// own source of that chunk in the same step, and no member reads another's source after step 0,
// which reads member r-1's chunk r-1; r-1 writes that chunk only in the all-gather, after the
// sync between the passes. So every read sees what it would see with separate buffers.
// Threads: every thread of `g`, on every member, same arguments. source and dest symmetric, and
// either apart or the same. Ordering: dest complete and source reusable on return. Channels
// (channel.hpp): channel c runs the ring on its range, with its own signal words.
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/coll/reduce_direct.hpp"
#include "symmetra/device/signal.hpp"

namespace symmetra::coll {

template <class Group, class T>
SYMMETRA_INLINE void allreduce_ring(Group g, const device::Context& ctx, int team, T* dest,
                                    const T* source, std::size_t nelems, ReduceOp op,
                                    Channel ch = {}) {
  constexpr const char* kOp = "allreduce_ring";
  const detail::TeamView t = detail::team_view(ctx, team, kOp);
  if (dest == source)  // in place (above); a partial overlap is still an error
    detail::check_reduce<T>(ctx, kOp, op, nullptr, 0, nullptr, 0);
  else
    detail::check_reduce(ctx, kOp, op, dest, nelems, source, nelems);
  if (device::detail::checks_on(ctx)) {
    device::detail::check_symmetric(ctx, kOp, source, nelems * sizeof(T));
    device::detail::check_symmetric(ctx, kOp, dest, nelems * sizeof(T));
    detail::check_channel(ctx, kOp, ch, t.size());
  }
  const int m = t.size(), r = t.rank();
  {  // a channel is a ring of its own range, on its own signal words
    const Channel::Range part = ch.range(nelems, vec_elems<T>());
    dest += part.first;
    source += part.first;
    nelems = part.count;
  }
  if (m == 1) {
    device::detail::group_copy(g, dest, source, nelems * sizeof(T));
    g.sync();
    return;
  }
  // Chunk c of m, of whole 16-byte groups where possible, so that the copies stay vectorized.
  auto chunk = [&](int c) { return part_of(nelems, m, c, vec_elems<T>()); };
  const int prev = t.world((r + m - 1) % m), next = t.world((r + 1) % m);
  device::detail::HeapHeader* h = device::detail::my_header(ctx);
  const int slot = t.desc.slot;
  const std::size_t tr = static_cast<std::size_t>(g.thread_rank()),
                    gs = static_cast<std::size_t>(g.size());
  std::uint64_t* const signal = channel_signal(h, slot, ch);
  std::uint64_t* const consumed = channel_base(h, slot, ch);
  channel_sync(g, ctx, team, ch);
  const std::uint64_t base = *consumed;
  auto wait_prev = [&](std::uint64_t steps) {
    if (tr == 0) device::detail::wait_value(ctx, kOp, signal, Cmp::kGe, base + steps);
    g.sync();
  };
  for (int s = 0; s < m - 1; ++s) {
    const int c = ((r - s - 1) % m + m) % m;
    if (s > 0) wait_prev(static_cast<std::uint64_t>(s));
    const T* partial = ctx.peer(s == 0 ? source : dest, prev);
    const Part p = chunk(c);
    for (std::size_t i = tr; i < p.count; i += gs)
      dest[p.first + i] =
          from_accum<T>(combine(op, to_accum(partial[p.first + i]), to_accum(source[p.first + i])));
    device::detail::group_signal(g, ctx, signal, 1, SignalOp::kAdd, next);
  }
  channel_sync(g, ctx, team, ch);
  for (int s = 0; s < m - 1; ++s) {
    const int c = ((r - s) % m + m) % m;
    if (s > 0) wait_prev(static_cast<std::uint64_t>(m - 1 + s));
    const Part p = chunk(c);
    device::get(g, ctx, dest + p.first, dest + p.first, p.count, prev);
    device::detail::group_signal(g, ctx, signal, 1, SignalOp::kAdd, next);
  }
  wait_prev(2 * static_cast<std::uint64_t>(m - 1));
  if (tr == 0) *consumed = base + 2 * static_cast<std::uint64_t>(m - 1);
  channel_sync(g, ctx, team, ch);
}

}  // namespace symmetra::coll
