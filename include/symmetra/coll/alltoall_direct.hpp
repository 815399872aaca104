// All-to-all, direct (OpenSHMEM 1.5 shmem_alltoall / shmem_alltoalls): block k of source goes
// to member k, landing in block <my rank> of its dest. alltoalls takes element strides.
//
// Threads: every thread of `g`, on every member, same arguments. Ordering: a sync first, a
// barrier last: dest complete and source reusable on return. Channels (channel.hpp; alltoall):
// channel c moves its range of every block.
#pragma once

#include <cstddef>

#include "symmetra/coll/channel.hpp"
#include "symmetra/coll/team_collective.hpp"
#include "symmetra/device/rma.hpp"

namespace symmetra::coll {

template <class Group, class T>
SYMMETRA_INLINE void alltoall(Group g, const device::Context& ctx, int team, T* dest,
                              const T* source, std::size_t nelems, Channel ch = {}) {
  const detail::TeamView t = detail::team_view(ctx, team, "alltoall");
  if (device::detail::checks_on(ctx)) detail::check_channel(ctx, "alltoall", ch, t.size());
  const Channel::Range part = ch.range(nelems, vec_elems<T>());
  channel_sync(g, ctx, team, ch);
  for (int i = 0; i < t.size(); ++i) {
    const int k = (t.rank() + i) % t.size();
    device::put(g, ctx, dest + static_cast<std::size_t>(t.rank()) * nelems + part.first,
                source + static_cast<std::size_t>(k) * nelems + part.first, part.count, t.world(k));
  }
  channel_sync(g, ctx, team, ch, true);
}

// dest[dst * (rank * nelems + i)] on member k = source[sst * (k * nelems + i)], i < nelems.
template <class Group, class T>
SYMMETRA_INLINE void alltoalls(Group g, const device::Context& ctx, int team, T* dest,
                               const T* source, std::ptrdiff_t dst, std::ptrdiff_t sst,
                               std::size_t nelems) {
  const detail::TeamView t = detail::team_view(ctx, team, "alltoalls");
  device::sync(g, ctx, team);
  for (int i = 0; i < t.size(); ++i) {
    const int k = (t.rank() + i) % t.size();
    device::iput(g, ctx, dest + dst * static_cast<std::ptrdiff_t>(t.rank() * nelems),
                 source + sst * static_cast<std::ptrdiff_t>(k * nelems), dst, sst, nelems, t.world(k));
  }
  device::barrier(g, ctx, team);
}

}  // namespace symmetra::coll
