// What every collective algorithm needs from a team: its members in world numbering, this PE's
// rank, and the sync (dissemination, device/sync.hpp) that fences each algorithm's phases.
#pragma once

#include "symmetra/device/context.hpp"
#include "symmetra/device/impl/check.hpp"
#include "symmetra/device/impl/heap_header.hpp"
#include "symmetra/device/sync.hpp"

namespace symmetra::coll::detail {

struct TeamView {
  device::TeamDesc desc;
  SYMMETRA_INLINE int size() const { return desc.size; }
  SYMMETRA_INLINE int rank() const { return desc.my_rank; }
  SYMMETRA_INLINE int world(int rank) const { return desc.start + rank * desc.stride; }
  // Whether every member is on this PE's host, and so reachable by load and store: the
  // algorithms that read or write members' memory directly run only then (docs/transports.md).
  SYMMETRA_INLINE bool one_host() const { return desc.local == desc.size; }
};

// The calling PE's view of `team`; ends the job if this PE is not a member.
SYMMETRA_INLINE TeamView team_view(const device::Context& ctx, int team, const char* op) {
  if (team < 0 || team >= device::kMaxTeams || ctx.teams[team].size == 0 ||
      ctx.teams[team].my_rank < 0)
    SYMMETRA_FATAL(ctx, op, "team handle %d is not a team this PE belongs to", team);
  if (device::detail::checks_on(ctx)) device::detail::check_team_local(ctx, op, ctx.teams[team]);
  return TeamView{ctx.teams[team]};
}

}  // namespace symmetra::coll::detail

namespace symmetra::coll {

// Members per host of team `t` for the hierarchy: TeamDesc::local when the team's hosts are
// contiguous runs of equal length, else 1 (the LL algorithms then treat every member as a host).
SYMMETRA_INLINE int team_local(const device::TeamDesc& t) {
  return t.local > 0 && t.size % t.local == 0 ? t.local : 1;
}

}  // namespace symmetra::coll
