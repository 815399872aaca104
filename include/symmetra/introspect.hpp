// What the runtime decided, for tools, benchmarks and tests: a team's layout, the algorithm an
// all-reduce would run, whether NCCL serves a team. A program needs none of it (runtime.hpp is
// the API); these follow the planner (src/runtime/planner.hpp) as it changes.
//
// Threads: as the Runtime's setup methods (one thread at a time). No communication.
#pragma once

#include <cstddef>

#include "symmetra/coll/call.hpp"
#include "symmetra/device/context.hpp"
#include "symmetra/runtime.hpp"

namespace symmetra::introspect {

// The descriptor of team `handle` (start, stride, size, this PE's rank, slot, members per host);
// size 0 for a handle that names no team of this PE. An error for a handle out of range.
const device::TeamDesc& team_desc(const Runtime& rt, int handle);

// The algorithm allreduce would run for these arguments: the selector's for kAuto (what the
// team's first all-reduce learned about NCCL included), else `requested` where it can serve the
// call, else the error allreduce would raise. `separate_symmetric`: dest and source apart in the
// symmetric heap, or not (private, or in place).
coll::AllreduceAlgo allreduce_algo(const Runtime& rt, const Team& team, std::size_t bytes,
                                   bool separate_symmetric,
                                   coll::AllreduceAlgo requested = coll::AllreduceAlgo::kAuto,
                                   DataType type = DataType::kFloat,
                                   coll::ReduceOp op = coll::ReduceOp::kSum);

// GPU backend: NCCL serves this team's all-reduce (known after the team's first all-reduce,
// which agrees on it collectively: every member loads NCCL, members on distinct GPUs).
bool nccl_ready(const Runtime& rt, const Team& team);

}  // namespace symmetra::introspect
