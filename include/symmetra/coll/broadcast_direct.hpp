// broadcast, direct: the root puts its block to every member (OpenSHMEM 1.5 shmem_broadcast).
//
// Threads: every thread of `g`, on every member of `team`, same arguments. Ordering: the root
// writes a member's dest only after that member entered the call (it no longer uses dest;
// unless Context::kDestReadyByProgram says the program saw to that, credit.hpp); a
// member's dest is complete when it returns, the root's source when the root returns. One
// channel: credit and signal (credit.hpp), two one-way hops. Several channels (channel.hpp):
// channel c moves its range of the block between a channel sync and a channel barrier, after
// which every dest is complete.
// dest on the root is written too, unless write_root is false (the OpenSHMEM 1.4 active-set
// form); dest and source may be the same on the root.
#pragma once

#include <cstddef>

#include "symmetra/coll/channel.hpp"
#include "symmetra/coll/credit.hpp"
#include "symmetra/coll/team_collective.hpp"
#include "symmetra/device/rma.hpp"

namespace symmetra::coll {

template <class Group, class T>
SYMMETRA_INLINE void broadcast(Group g, const device::Context& ctx, int team, T* dest,
                               const T* source, std::size_t nelems, int root, Channel ch = {},
                               bool write_root = true) {
  const detail::TeamView t = detail::team_view(ctx, team, "broadcast");
  if (device::detail::checks_on(ctx)) {
    if (root < 0 || root >= t.size())
      SYMMETRA_FATAL(ctx, "broadcast", "root %d is not a rank of a team of %d PEs", root, t.size());
    detail::check_channel(ctx, "broadcast", ch, t.size());
  }
  const bool is_root = t.rank() == root;
  if (ch.count == 1) {
    const detail::Credits credits = detail::dest_credits(ctx);
    const std::uint64_t k = detail::credit_grant(
        g, ctx, t,
        [&](auto grant) {
          if (!is_root) grant(root);
        },
        credits);
    if (!is_root) return detail::credit_wait(g, ctx, t, 1, "broadcast", credits);
    if (write_root && dest != source) device::put(g, ctx, dest, source, nelems, t.world(root));
    return detail::credit_put(g, ctx, t, k, dest, source, nelems, "broadcast",
                              detail::all_but(root, t.size()), credits);
  }
  const Channel::Range part = ch.range(nelems, vec_elems<T>());
  channel_sync(g, ctx, team, ch);
  if (is_root) {
    for (int k = 0; k < t.size(); ++k)
      if (k != root || (write_root && dest != source))
        device::put(g, ctx, dest + part.first, source + part.first, part.count, t.world(k));
  }
  channel_sync(g, ctx, team, ch, true);
}

}  // namespace symmetra::coll
