// All-reduce around rings of puts, for large messages on teams that span hosts: every step is
// pushed by put_signal into the successor's dest, so no member loads or stores the memory of a
// member on another host, and each host link carries raw data at its own rate (a GPU PE's
// kernel reaches other hosts through its proxy ring), where the LL algorithms send twice the
// data in chunks of the workspace lane, each chunk a round trip across hosts.
//
// The team is H hosts of L members (team rank = host * L + local rank, `local` = L; L = 1 is
// one ring over the whole team). Member (h, l) owns slice l of the message (1/L of it) and runs
// a ring over its rail, the members (0, l) ... (H-1, l), on that slice cut into H chunks:
//  - Reduce-scatter step s (0 <= s < H-1): (h, l) puts chunk c = (h - s) mod H into (h+1, l)'s
//    dest with a signal, waits for chunk (h - 1 - s) from (h-1, l) in its own dest, and combines
//    its host's sum of that chunk into it: the sources of the L members of host h, read by load
//    (they share the host). At s = 0 it sends its host's sum of chunk h, first written to its
//    own dest (with L = 1: its source, no copy). After H-1 steps (h, l) holds chunk h+1 of
//    slice l complete.
//  - All-gather step s: (h, l) puts chunk (h + 1 - s) mod H, waits for chunk (h - s).
//  - Host all-gather: each chunk of slice l that (h, l) holds complete (chunk h+1 after the
//    reduce-scatter, each chunk it receives after) it puts with a signal into the same place in
//    the dest of every other member of its host, once it has sent it on along the rail. Each
//    member ends by waiting for H (L-1) such chunks.
// So a member sends 2(H-1)/H of its slice across hosts in 2(H-1) steps, where one ring over all
// m = HL members takes 2(m-1) steps, half of them across hosts. Each chunk is reduced once, so
// members agree bit for bit.
// Why no put overwrites what its owner still needs:
//  - Rail reduce-scatter: (h+1, l) receives chunk c at step s and touches it at no earlier step
//    (it receives every chunk but h+1 once, in order, and sends a chunk only the step after it
//    received it). Its own chunk h+1, written at step 0, is first received in the all-gather.
//  - Rail all-gather step s >= 1 writes (h+1, l)'s chunk h+1-s, which it sent on at its
//    reduce-scatter step s. That send happened before (h, l)'s all-gather step s: a chain of
//    H-1 reduce-scatter puts and s all-gather steps leads from one to the other. A put returns
//    with its source read (local completion).
//  - Host all-gather: slice l' of (h, l)'s dest is written only by (h, l'), never read or
//    written by (h, l) itself during the call.
//  - Sources: (h, l) waits for every chunk of each member of its host, and each member sends
//    its last chunk after its last read of the host's sources. So on return no member of the
//    host still reads this member's source.
// So the only sync is the first one (sources written, every member inside the call, so that no
// put lands in a dest whose owner still reads it from the last call). At the end every member
// has all 2(H-1) of its rail predecessor's signals and H(L-1) host signals: nothing more lands
// in its dest.
// Threads: every thread of `g`, on every member, same arguments. dest and source symmetric and
// apart (in place, member (h+1, l)'s source chunk would be overwritten before it is combined).
// The members of one host reach each other by load and store (TeamView::one_host's premise).
// Ordering: dest complete and source reusable on return. One channel (ch.count == 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "symmetra/coll/reduce_direct.hpp"
#include "symmetra/coll/reduce_range.hpp"
#include "symmetra/device/signal.hpp"

namespace symmetra::coll {

template <class Group, class T>
SYMMETRA_INLINE void allreduce_put_ring(Group g, const device::Context& ctx, int team, T* dest,
                                        const T* source, std::size_t nelems, ReduceOp op, int local,
                                        Channel ch = {}) {
  constexpr const char* kOp = "allreduce_put_ring";
  const detail::TeamView t = detail::team_view(ctx, team, kOp);
  const int m = t.size(), r = t.rank();
  if (local < 1 || m % local != 0)
    SYMMETRA_FATAL(ctx, kOp, "%d members per host does not divide a team of %d", local, m);
  detail::check_reduce(ctx, kOp, op, dest, nelems, source, nelems);
  if (device::detail::checks_on(ctx)) {
    device::detail::check_symmetric(ctx, kOp, source, nelems * sizeof(T));
    device::detail::check_symmetric(ctx, kOp, dest, nelems * sizeof(T));
  }
  // One channel: allreduce_algo.hpp's takes_channels says why.
  if (ch.count != 1) SYMMETRA_FATAL(ctx, kOp, "runs as one channel, not %d", ch.count);
  if (m == 1) {
    device::detail::group_copy(g, dest, source, nelems * sizeof(T));
    g.sync();
    return;
  }
  const int L = local, H = m / L, h = r / L, l = r % L;
  // This host's members, as a team view of their own: what reduce_range sums over.
  device::TeamDesc host_desc = t.desc;
  host_desc.start = t.world(h * L);
  host_desc.size = L;
  host_desc.my_rank = l;
  const detail::TeamView host{host_desc};
  if (device::detail::checks_on(ctx))
    for (int j = 0; j < L; ++j)
      if (!ctx.reachable(host.world(j)))
        SYMMETRA_FATAL(ctx, kOp,
                       "PE %d shares this PE's host in a team of %d per host, but is not "
                       "reachable by load and store",
                       host.world(j), L);
  const Part slice = part_of(nelems, L, l, vec_elems<T>());
  auto chunk = [&](int c) {
    Part p = part_of(slice.count, H, ((c % H) + H) % H, vec_elems<T>());
    p.first += slice.first;
    return p;
  };
  const int next = t.world(((h + 1) % H) * L + l);
  device::detail::HeapHeader* hdr = device::detail::my_header(ctx);
  const int slot = t.desc.slot;
  const std::size_t tr = static_cast<std::size_t>(g.thread_rank()),
                    gs = static_cast<std::size_t>(g.size());
  std::uint64_t* const signal = &hdr->chunk_signal[slot];
  std::uint64_t* const consumed = &hdr->chunk_base[slot];
  std::uint64_t* const host_signal = &hdr->chan_signal[slot][0];  // heap_header.hpp says why
  std::uint64_t* const host_consumed = &hdr->chan_base[slot][0];
  device::sync(g, ctx, team);
  const std::uint64_t base = *consumed, host_base = *host_consumed;
  // dest's chunk c = this host's sum of it (reduce_range: 16-byte packs on the GPU), or that
  // sum combined onto the partial that dest holds (`onto`): the CPU's block loop, or on the GPU
  // an element loop of its own, so that the direct algorithms' reduce_range stays as it was.
  auto host_sum = [&](int c, bool onto) {
    const Part p = chunk(c);
    if (!onto)
      return detail::reduce_range(g, ctx, host, dest + p.first, source, p.first, p.count, op);
#if !SYMMETRA_DEVICE_PASS
    if constexpr (std::is_same_v<Group, device::ThreadGroup>)
      return detail::reduce_blocks_host(ctx, host, source, p.first, p.count, op,
                                        detail::RangeStore<T>{dest + p.first, nullptr, 0},
                                        dest + p.first);
#endif
    for (std::size_t i = tr; i < p.count; i += gs) {
      const std::size_t k = p.first + i;
      auto acc = to_accum(dest[k]);
      for (int j = 0; j < L; ++j)
        acc = combine(op, acc, to_accum(ctx.peer(source, host.world(j))[k]));
      dest[k] = from_accum<T>(acc);
    }
  };
  auto send = [&](const T* from, int c) {
    const Part p = chunk(c);
    g.sync();  // the group's stores of the chunk before any thread's copy of it
    device::put_signal(g, ctx, dest + p.first, from + p.first, p.count, signal, 1, SignalOp::kAdd,
                       next);
  };
  auto share = [&](int c) {  // to the other members of this host, after send: off the rail
    const Part p = chunk(c);
    g.sync();
    for (int j = 1; j < L; ++j)
      device::put_signal(g, ctx, dest + p.first, dest + p.first, p.count, host_signal, 1,
                         SignalOp::kAdd, host.world((l + j) % L));
  };
  auto receive = [&](std::uint64_t steps) {
    if (tr == 0) device::detail::wait_value(ctx, kOp, signal, Cmp::kGe, base + steps);
    g.sync();
  };
  if (L > 1 || H == 1) host_sum(h, false);
  for (int s = 0; s < H - 1; ++s) {
    send(s == 0 && L == 1 ? source : dest, h - s);
    receive(static_cast<std::uint64_t>(s) + 1);
    host_sum(h - 1 - s, true);
  }
  for (int s = 0; s < H - 1; ++s) {
    send(dest, h + 1 - s);
    share(h + 1 - s);
    receive(static_cast<std::uint64_t>(H) + static_cast<std::uint64_t>(s));
  }
  share(h + 2 - H);  // the last chunk completed: h+1 after the reduce-scatter when H = 1
  const std::uint64_t shared = static_cast<std::uint64_t>(H) * static_cast<std::uint64_t>(L - 1);
  if (tr == 0) {
    if (L > 1) device::detail::wait_value(ctx, kOp, host_signal, Cmp::kGe, host_base + shared);
    *consumed = base + 2 * static_cast<std::uint64_t>(H - 1);
    *host_consumed = host_base + shared;
  }
  g.sync();
}

}  // namespace symmetra::coll
