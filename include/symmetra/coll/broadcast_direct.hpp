// broadcast, direct: the root puts its block to every member (OpenSHMEM 1.5 shmem_broadcast).
//
// Threads: every thread of `g`, on every member of `team`, same arguments. Ordering: a sync
// first (no member still uses its dest), a barrier last (every dest complete on return;
// source reusable). dest on the root is written too; dest and source may be the same on the root.
// Channels (channel.hpp): channel c moves its range of the block.
#pragma once

#include <cstddef>

#include "symmetra/coll/channel.hpp"
#include "symmetra/coll/team_collective.hpp"
#include "symmetra/device/rma.hpp"

namespace symmetra::coll {

template <class Group, class T>
SYMMETRA_INLINE void broadcast(Group g, const device::Context& ctx, int team, T* dest,
                               const T* source, std::size_t nelems, int root, Channel ch = {}) {
  const detail::TeamView t = detail::team_view(ctx, team, "broadcast");
  if (device::detail::checks_on(ctx)) {
    if (root < 0 || root >= t.size())
      SYMMETRA_FATAL(ctx, "broadcast", "root %d is not a rank of a team of %d PEs", root, t.size());
    detail::check_channel(ctx, "broadcast", ch, t.size());
  }
  const Channel::Range part = ch.range(nelems, vec_elems<T>());
  channel_sync(g, ctx, team, ch);
  if (t.rank() == root) {
    for (int k = 0; k < t.size(); ++k)
      if (k != root || dest != source)
        device::put(g, ctx, dest + part.first, source + part.first, part.count, t.world(k));
  }
  channel_sync(g, ctx, team, ch, true);
}

}  // namespace symmetra::coll
