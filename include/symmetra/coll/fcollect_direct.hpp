// All-gather, direct: fcollect (equal blocks) and collect (blocks of any size), OpenSHMEM 1.5
// shmem_fcollect / shmem_collect. dest receives the members' source blocks in team order.
//
// fcollect pushes (each member puts its block to every member); fcollect_read pulls (each member
// reads every member's block), which needs no puts and suits load/store peers.
// Threads: every thread of `g`, on every member, same arguments (collect: nelems may differ).
// Ordering: dest complete and source reusable on return. fcollect of one channel: credit and
// signal (credit.hpp; a member writes into another's dest only after that member entered the
// call). Otherwise a sync first and a barrier (push) or sync (pull) last. Channels (channel.hpp;
// fcollect and fcollect_read): channel c moves its range of every block.
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/coll/channel.hpp"
#include "symmetra/coll/credit.hpp"
#include "symmetra/coll/team_collective.hpp"
#include "symmetra/device/rma.hpp"

namespace symmetra::coll {

template <class Group, class T>
SYMMETRA_INLINE void fcollect(Group g, const device::Context& ctx, int team, T* dest,
                              const T* source, std::size_t nelems, Channel ch = {}) {
  const detail::TeamView t = detail::team_view(ctx, team, "fcollect");
  if (device::detail::checks_on(ctx)) detail::check_channel(ctx, "fcollect", ch, t.size());
  if (ch.count == 1) {
    const int me = t.rank(), m = t.size();
    T* const mine = dest + static_cast<std::size_t>(me) * nelems;
    // Always with credits: OpenSHMEM asks the program to ready the dest of broadcast and
    // alltoall, not of collect (credit.hpp).
    const std::uint64_t k = detail::credit_grant(g, ctx, t, detail::all_but(me, m));
    device::put(g, ctx, mine, source, nelems, t.world(me));
    detail::credit_put(g, ctx, t, k, mine, source, nelems, "fcollect", detail::all_but(me, m));
    return detail::credit_wait(g, ctx, t, static_cast<std::uint64_t>(m - 1), "fcollect");
  }
  const Channel::Range part = ch.range(nelems, vec_elems<T>());
  channel_sync(g, ctx, team, ch);
  for (int i = 0; i < t.size(); ++i) {
    const int k = (t.rank() + i) % t.size();  // start at a different member on each PE
    device::put(g, ctx, dest + static_cast<std::size_t>(t.rank()) * nelems + part.first,
                source + part.first, part.count, t.world(k));
  }
  channel_sync(g, ctx, team, ch, true);
}

template <class Group, class T>
SYMMETRA_INLINE void fcollect_read(Group g, const device::Context& ctx, int team, T* dest,
                                   const T* source, std::size_t nelems, Channel ch = {}) {
  const detail::TeamView t = detail::team_view(ctx, team, "fcollect_read");
  if (device::detail::checks_on(ctx)) detail::check_channel(ctx, "fcollect_read", ch, t.size());
  const Channel::Range part = ch.range(nelems, vec_elems<T>());
  channel_sync(g, ctx, team, ch);  // every source is written
  for (int i = 0; i < t.size(); ++i) {
    const int k = (t.rank() + i) % t.size();
    device::get(g, ctx, dest + static_cast<std::size_t>(k) * nelems + part.first,
                source + part.first, part.count, t.world(k));
  }
  channel_sync(g, ctx, team, ch);  // nobody rewrites a source still being read
}

// Blocks of different sizes: the sizes travel first through the team's scratch row, then each
// member puts its block at the sum of the sizes before it.
template <class Group, class T>
SYMMETRA_INLINE void collect(Group g, const device::Context& ctx, int team, T* dest,
                             const T* source, std::size_t nelems) {
  const detail::TeamView t = detail::team_view(ctx, team, "collect");
  std::uint64_t* row =
      device::detail::scratch(device::detail::my_header(ctx), t.desc.slot, ctx.n_pes);
  device::sync(g, ctx, team);
  if (g.thread_rank() == 0)
    for (int k = 0; k < t.size(); ++k)
      device::p(ctx, &row[t.rank()], std::uint64_t{nelems}, t.world(k));
  device::barrier(g, ctx, team);
  std::size_t offset = 0;
  for (int k = 0; k < t.rank(); ++k)
    offset += device::detail::atomic_load(&row[k], device::detail::kRelaxed);
  for (int i = 0; i < t.size(); ++i)
    device::put(g, ctx, dest + offset, source, nelems, t.world((t.rank() + i) % t.size()));
  device::barrier(g, ctx, team);
}

}  // namespace symmetra::coll
