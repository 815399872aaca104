// symmetra/introspect.hpp: read through RuntimeAccess, so none of it is Runtime's API.
#include "symmetra/introspect.hpp"

#include <string>

#include "runtime/planner.hpp"
#include "runtime/state.hpp"

namespace symmetra::introspect {
namespace {

int team_of(const Runtime& rt, const Team& team, const char* op) {
  const auto& teams = detail::RuntimeAccess::state(rt).teams;
  const int h = team.handle();
  if (!team.valid() || h >= device::kMaxTeams || teams[h].size == 0 || teams[h].my_rank < 0)
    throw Error("[pe " + std::to_string(rt.my_pe()) + "] " + op + ": team handle " +
                std::to_string(h) + " is not a team this PE belongs to");
  return h;
}

}  // namespace

const device::TeamDesc& team_desc(const Runtime& rt, int handle) {
  if (handle < 0 || handle >= device::kMaxTeams)
    throw Error("[pe " + std::to_string(rt.my_pe()) + "] team_desc: team handle " +
                std::to_string(handle) + " is out of range (0-" +
                std::to_string(device::kMaxTeams - 1) + ")");
  return detail::RuntimeAccess::state(rt).teams[handle];
}

coll::AllreduceAlgo allreduce_algo(const Runtime& rt, const Team& team, std::size_t bytes,
                                   bool separate_symmetric, coll::AllreduceAlgo requested,
                                   DataType type, coll::ReduceOp op) {
  return detail::RuntimeAccess::state(rt).planner->allreduce_algo(
      team_of(rt, team, "allreduce"), bytes,
      separate_symmetric ? coll::Buffers::kSeparate : coll::Buffers::kOther, requested, type, op);
}

bool nccl_ready(const Runtime& rt, const Team& team) {
  return detail::RuntimeAccess::state(rt).planner->nccl_ready(team_of(rt, team, "nccl_ready"));
}

}  // namespace symmetra::introspect
