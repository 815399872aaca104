// broadcast, direct: the root puts its block to every member (OpenSHMEM 1.5 shmem_broadcast).
//
// Threads: every thread of `g`, on every member of `team`, same arguments. Ordering: a sync
// first (no member still uses its dest), a barrier last (every dest complete on return;
// source reusable). dest on the root is written too; dest and source may be the same on the root.
#pragma once

#include <cstddef>

#include "symmetra/coll/team_collective.hpp"
#include "symmetra/device/rma.hpp"

namespace symmetra::coll {

template <class Group, class T>
SYMMETRA_INLINE void broadcast(Group g, const device::Context& ctx, int team, T* dest,
                               const T* source, std::size_t nelems, int root) {
  const detail::TeamView t = detail::team_view(ctx, team, "broadcast");
  if (device::detail::checks_on(ctx) && (root < 0 || root >= t.size()))
    SYMMETRA_FATAL(ctx, "broadcast", "root %d is not a rank of a team of %d PEs", root, t.size());
  device::sync(g, ctx, team);
  if (t.rank() == root) {
    for (int k = 0; k < t.size(); ++k)
      if (k != root || dest != source) device::put(g, ctx, dest, source, nelems, t.world(k));
  }
  device::barrier(g, ctx, team);
}

}  // namespace symmetra::coll
