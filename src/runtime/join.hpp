// How a Runtime is made: the job joined in named phases (join.cpp), each reading what the ones
// before it left. Collective over the job: every PE runs the same phases in the same order, and
// every PE sees the same tables, so all take the same branches.
#pragma once

#include <memory>

#include "bootstrap/bootstrap.hpp"
#include "symmetra/runtime.hpp"

namespace symmetra::detail {

// Phases: identify hosts (one exchange: machine, topology host, reserved bytes), host group (the
// PEs that map each other's heaps), heap (the host heap and symmetric static data), remote sink
// (the transport and the host proxy, where PEs live on other hosts), backend (the data heap and
// the collective planner), context (what the inline data path reads), GPU remote (the device
// heap on the transport, the kernels' proxy), open (the header's mark, a barrier, the watch).
// Throws symmetra::Error naming this PE.
void join(Runtime& rt, std::unique_ptr<Bootstrap> bootstrap, const RuntimeOptions& options);

}  // namespace symmetra::detail
