// All-reduce around a ring of puts, for large messages on teams that span hosts: the ring of
// allreduce_ring.hpp with every step pushed by put_signal into the successor's dest instead of
// read from the predecessor's, so that it needs no load or store of another member's memory and
// crosses hosts through the transport (a GPU PE's kernel through its proxy ring). The message is
// cut into one chunk per member and every link carries 2(m-1)/m of it, where the LL algorithms
// send twice the data in chunks of the workspace lane, each chunk a round trip across hosts.
//
// Reduce-scatter step s (0 <= s < m-1): member r puts chunk c = (r - s) mod m (its source at
// s = 0, its dest after) into member r+1's dest with a signal, waits for chunk (r - 1 - s) from
// member r-1 in its own dest, and combines its source into it. After m-1 steps member r holds
// chunk r+1 complete. All-gather step s: member r puts chunk (r + 1 - s) mod m, waits for chunk
// (r - s). Each chunk is reduced once, so members agree bit for bit.
// Why no member overwrites a chunk that its owner still needs:
//  - Reduce-scatter: member q = r+1 receives chunk c at step s and touches it at no earlier step
//    (it receives every chunk but q once, in order, and sends a chunk only the step after it
//    received it).
//  - All-gather step s >= 1 writes q's chunk q - s, which q sent on at its reduce-scatter step s.
//    That send happened before r's all-gather step s: r's step follows r-1's step s-1, ..., r-s's
//    all-gather step 0, which follows r-s's last reduce-scatter receive, the end of a chain of
//    reduce-scatter puts that starts at q's step s (m-1 hops forward). A put returns with its
//    source read (local completion), so q's dest chunk was read before r's put was issued.
// So the only sync is the first one (sources written, every member inside the call, so that no
// put lands in a dest its owner still reads from the last call). At the end every member has
// all 2(m-1) of its predecessor's signals: nothing more lands in its dest, and its own puts
// have read their sources.
// Threads: every thread of `g`, on every member, same arguments. dest symmetric; source and dest
// apart (in place, member r+1's source chunk would be overwritten before it is combined).
// Ordering: dest complete and source reusable on return. Channels (channel.hpp): channel c runs
// the ring on its range, with its own signal words.
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/coll/reduce_direct.hpp"
#include "symmetra/device/signal.hpp"

namespace symmetra::coll {

template <class Group, class T>
SYMMETRA_INLINE void allreduce_put_ring(Group g, const device::Context& ctx, int team, T* dest,
                                        const T* source, std::size_t nelems, ReduceOp op,
                                        Channel ch = {}) {
  constexpr const char* kOp = "allreduce_put_ring";
  const detail::TeamView t = detail::team_view(ctx, team, kOp);
  detail::check_reduce(ctx, kOp, op, dest, nelems, source, nelems);
  if (device::detail::checks_on(ctx)) {
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
  auto chunk = [&](int c) { return part_of(nelems, m, ((c % m) + m) % m, vec_elems<T>()); };
  const int next = t.world((r + 1) % m);
  device::detail::HeapHeader* h = device::detail::my_header(ctx);
  const int slot = t.desc.slot;
  const std::size_t tr = static_cast<std::size_t>(g.thread_rank()),
                    gs = static_cast<std::size_t>(g.size());
  std::uint64_t* const signal = channel_signal(h, slot, ch);
  std::uint64_t* const consumed = channel_base(h, slot, ch);
  channel_sync(g, ctx, team, ch);
  const std::uint64_t base = *consumed;
  auto send = [&](const T* from, int c) {
    const Part p = chunk(c);
    g.sync();  // the group's stores of the chunk before any thread's copy of it
    device::put_signal(g, ctx, dest + p.first, from + p.first, p.count, signal, 1, SignalOp::kAdd,
                       next);
  };
  auto receive = [&](std::uint64_t steps) {
    if (tr == 0) device::detail::wait_value(ctx, kOp, signal, Cmp::kGe, base + steps);
    g.sync();
  };
  for (int s = 0; s < m - 1; ++s) {
    send(s == 0 ? source : dest, r - s);
    receive(static_cast<std::uint64_t>(s) + 1);
    const Part p = chunk(r - 1 - s);
    for (std::size_t i = tr; i < p.count; i += gs)
      dest[p.first + i] =
          from_accum<T>(combine(op, to_accum(dest[p.first + i]), to_accum(source[p.first + i])));
  }
  for (int s = 0; s < m - 1; ++s) {
    send(dest, r + 1 - s);
    receive(static_cast<std::uint64_t>(m) + static_cast<std::uint64_t>(s));
  }
  if (tr == 0) *consumed = base + 2 * static_cast<std::uint64_t>(m - 1);
  g.sync();
}

}  // namespace symmetra::coll
