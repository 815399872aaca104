// symmetra/introspect.hpp: read through RuntimeAccess, so none of it is Runtime's API.
#include "symmetra/introspect.hpp"

#include <string>

#include "runtime/planner.hpp"
#include "runtime/state.hpp"

namespace symmetra::introspect {

const device::TeamDesc& team_desc(const Runtime& rt, int handle) {
  if (handle < 0 || handle >= device::kMaxTeams)
    throw_on_pe(rt.my_pe(), "team_desc: team handle " + std::to_string(handle) +
                                " is out of range (0-" + std::to_string(device::kMaxTeams - 1) +
                                ")");
  return detail::RuntimeAccess::state(rt).teams[handle];
}

coll::AllreduceAlgo allreduce_algo(const Runtime& rt, const Team& team, std::size_t bytes,
                                   bool separate_symmetric, coll::AllreduceAlgo requested,
                                   DataType type, coll::ReduceOp op) {
  return detail::RuntimeAccess::state(rt).planner->allreduce_algo(
      detail::RuntimeAccess::checked(rt, team, "allreduce"), bytes,
      separate_symmetric ? coll::Buffers::kSeparate : coll::Buffers::kOther, requested, type, op);
}

bool nccl_ready(const Runtime& rt, const Team& team) {
  return detail::RuntimeAccess::state(rt).planner->nccl_ready(
      detail::RuntimeAccess::checked(rt, team, "nccl_ready"));
}

}  // namespace symmetra::introspect
