// The collective planner: what a collective call becomes before it runs. It owns the policy that
// the host forms, the stream forms and Runtime::collective share: the rules on types and
// buffers, reduce as an all-reduce, the all-reduce's algorithm (the selector, NCCL), in-place
// reduce-scatter, private all-reduce buffers, and the channels of a GPU call. The runtime asks
// it, then runs what it says; it moves no data itself, except NCCL's all-reduce.
//
// Threads: the runtime's (one thread at a time for collectives). Errors: symmetra::Error naming
// the PE and the call.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "coll/nccl.hpp"
#include "coll/selector.hpp"
#include "runtime/team_table.hpp"
#include "symmetra/coll/call.hpp"
#include "symmetra/device/context.hpp"
#include "symmetra/stream.hpp"

namespace symmetra::detail {

class CollPlanner {
 public:
  // What the planner reads of the job; fixed after the runtime's construction, except the team
  // table it points into.
  struct Facts {
    int my_pe = 0;
    bool gpu = false;
    int pes_per_device = 1;                     // co-located PEs on one GPU
    std::uint64_t channel_bytes = 32ull << 10;  // SYMMETRA_CHANNEL_BYTES
    int max_channels = 32;                      // SYMMETRA_MAX_CHANNELS
    const TeamTable* teams = nullptr;
  };
  // What the runtime does with a resolved call.
  enum class Route {
    kRun,        // run the call as it now is
    kStage,      // a private all-reduce over the world: through the symmetric staging block
    kTemporary,  // a host reduce-scatter in place: into a temporary, then over dest
  };

  CollPlanner(Selector selector, Facts facts) : selector_(std::move(selector)), facts_(facts) {}

  // The calls resolve() returns as they are, without asking: the host forms of the kinds that
  // move data without combining it. Inline, so that the CPU's small host collectives pay no call
  // for them (perf_cpu.md#collectives).
  static bool leaves_alone(const coll::Call& c, bool host) {
    return host && !coll::is_reduction(c.kind);
  }

  // Resolves `c` (its team already checked) for the host form on the CPU backend (`host`) or a
  // kernel: rewrites the kind and the algorithm where the policy says, and says how to run it.
  // `buffers`: how an all-reduce's dest and source lie (Runtime::allreduce_buffers). `may_stage`
  // false asks for the plan without the staging block (the heap had no room for it).
  Route resolve(coll::Call& c, bool host, coll::Buffers buffers, bool may_stage,
                const char* op) const;
  // The algorithm an all-reduce of `bytes` over team slot `team` runs: the selector's where
  // `requested` is kAuto, else `requested` if it can serve the call (an error saying why not).
  coll::AllreduceAlgo allreduce_algo(int team, std::size_t bytes, coll::Buffers buffers,
                                     coll::AllreduceAlgo requested, DataType type,
                                     coll::ReduceOp op) const;
  // Channels (blocks) for a GPU call (coll/channel.hpp): by the data it moves, the same on every
  // member of its team.
  int channels(const coll::Call& c) const;

  // NCCL serves the all-reduce of this team (known after the team's first GPU all-reduce).
  bool nccl_ready(int team) const;
  // Collective over the team, once per team on the GPU backend: whether NCCL can serve it (every
  // member loads NCCL, members on distinct GPUs), and its communicator if so. `allgather` is the
  // team's all-gather of one word; `where` this PE's machine (bits 32-62) and GPU (bits 0-31).
  void ensure_nccl(int team, std::uint64_t where,
                   const std::function<std::vector<std::uint64_t>(std::uint64_t)>& allgather);
  void nccl_allreduce(const coll::Call& c, Stream stream, const char* op) const;
  // A destroyed team's communicator goes; all of them at finalize.
  void release(int slot) { nccl_.release(slot); }
  void release_all() { nccl_.release_all(); }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  const device::TeamDesc& team(int h) const { return (*facts_.teams)[h]; }

  Selector selector_;
  NcclTeams nccl_;
  Facts facts_;
};

}  // namespace symmetra::detail
