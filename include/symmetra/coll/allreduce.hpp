// All-reduce: one entry point over the algorithms, each in its own file.
//
//   kOneShot           allreduce_direct.hpp  read every member's source        (2 syncs)
//   kTwoShot           allreduce_direct.hpp  reduce a slice, read the others'  (3 syncs)
//   kRecursiveDoubling allreduce_ll.hpp      LL packets, log2(m) exchanges     (no syncs)
//   kLLTwoShot         allreduce_ll.hpp      LL reduce-scatter + all-gather    (no syncs)
//   kHierarchical      allreduce_ll.hpp      NVRAR: LL inside hosts, recursive doubling across
//   kRing              allreduce_ring.hpp    ring reduce-scatter + all-gather  (large messages)
//   kPutRing           allreduce_put_ring.hpp  rings of put_signal across hosts, reduce-scatter
//                      and all-gather inside them: large messages across hosts (1 sync)
//   kNccl              ncclAllReduce on the PE's stream: host and stream forms on the GPU
//                      backend, PEs on distinct GPUs, NCCL loadable (src/coll/nccl.hpp)
//
// kAuto picks by message size and the team's topology with the defaults below; the host forms
// (Runtime::allreduce) pick through the selector instead (measured crossovers, SYMMETRA_ALGO),
// and pass the algorithm down. The direct and ring algorithms need symmetric source and dest;
// the LL ones work on any memory of the PE (they fall back to them when buffers are private).
// Threads: every thread of `g`, on every member, same arguments (the algorithm included).
// Channels (channel.hpp): every algorithm takes `ch`; with ch.count > 1 the source must be
// complete before the kernel starts (channel.hpp).
#pragma once

#include <cstddef>

#include "symmetra/coll/allreduce_algo.hpp"
#include "symmetra/coll/allreduce_direct.hpp"
#include "symmetra/coll/allreduce_ll.hpp"
#include "symmetra/coll/allreduce_put_ring.hpp"
#include "symmetra/coll/allreduce_ring.hpp"

namespace symmetra::coll {

// Whether algorithm `a` can run on team `t`: those that load and store members' memory only
// inside one host (needs_load_store).
SYMMETRA_INLINE bool runs_on(AllreduceAlgo a, const device::TeamDesc& t) {
  return !needs_load_store(a) || t.local == t.size;
}

// The built-in defaults (a table from symmetra-tune replaces them on the host). GPU, one host
// (measured on two NVLinked H200s with channels, docs/selector.md): LL packets while they win
// (two members: recursive doubling to 256 KiB, the LL two-shot to 512 KiB; more members:
// recursive doubling to 16 KiB, whose rounds each carry the whole message, then the LL two-shot
// to 512 KiB), then with two members the one-shot (one read of the message, two syncs), with
// more the two-shot (the one-shot would read the message m-1 times); the ring never won on one
// host. CPU: below.
// Across hosts, either backend, members on other hosts are reached through the transport: the
// hierarchy, and from put_ring_from the put ring where the buffers allow it (separate and
// symmetric; `buffers` is what the host forms know, device code passes none). Each LL chunk of
// the hierarchy costs a round trip across hosts; the put ring pays a team sync and 2(H-1) hops
// across hosts once, then sends 2(H-1)/H of each member's 1/L slice. Over UCX on TCP, 2 hosts x
// 2 PEs: on the 2-core VM (CPU) it won from 128 KiB (351 us against 472), 2.3-2.4x at 512 KiB -
// 2 MiB; on the H200 (GPU, stream form), since the sync's words cross hosts as signals, it
// loses at 2 KiB (187 us against 107) and wins from 8 KiB (284 against 350), 4.5x at 32 KiB and
// 5-6x at 512 KiB - 1 MiB (docs/selector.md).
SYMMETRA_INLINE constexpr std::size_t put_ring_from(bool gpu) {
  return gpu ? std::size_t{8} << 10 : std::size_t{128} << 10;
}
SYMMETRA_INLINE AllreduceAlgo default_algo(const device::TeamDesc& t, std::size_t bytes, bool gpu,
                                           Buffers buffers = Buffers::kOther) {
  const bool one_host = team_local(t) == t.size;
  if (t.size <= 1) return AllreduceAlgo::kOneShot;
  if (!one_host && buffers == Buffers::kSeparate && bytes >= put_ring_from(gpu))
    return AllreduceAlgo::kPutRing;
  if (gpu) {
    if (one_host) {
      if (bytes <= (t.size == 2 ? (256u << 10) : (16u << 10)))
        return AllreduceAlgo::kRecursiveDoubling;
      if (bytes <= (512u << 10)) return AllreduceAlgo::kLLTwoShot;
      return t.size == 2 ? AllreduceAlgo::kOneShot : AllreduceAlgo::kTwoShot;
    }
    return AllreduceAlgo::kHierarchical;
  }
  if (!one_host) return AllreduceAlgo::kHierarchical;
  // Measured with symmetra-perf on the 2-core VM (docs/perf_cpu.md#collectives), since the direct
  // algorithms' CPU loop runs blocks: LL recursive doubling for a few cache lines, then the
  // two-shot (one read and one write of the message per member); with two PEs the ring above
  // 1 MiB (2 MiB a tie; 8 MiB: 1035-1093 us against 1222-1337). In place the direct algorithms
  // cannot run (the selector would fall back to the LL two-shot): the ring from 2 KiB (two PEs) or
  // 8 KiB (four, two per core; 32 KiB: 38 us against the LL two-shot's 71-74).
  const bool in_place = buffers == Buffers::kInPlace;
  if (t.size == 2) {
    if (bytes <= (in_place ? 1024u : 512u)) return AllreduceAlgo::kRecursiveDoubling;
    return in_place || bytes > (1u << 20) ? AllreduceAlgo::kRing : AllreduceAlgo::kTwoShot;
  }
  if (bytes <= (in_place ? 4096u : 512u)) return AllreduceAlgo::kRecursiveDoubling;
  return in_place ? AllreduceAlgo::kRing : AllreduceAlgo::kTwoShot;
}

template <class Group, class T>
SYMMETRA_INLINE void allreduce(Group g, const device::Context& ctx, int team, T* dest,
                               const T* source, std::size_t nelems, ReduceOp op,
                               AllreduceAlgo algo = AllreduceAlgo::kAuto, Channel ch = {}) {
  const detail::TeamView t = detail::team_view(ctx, team, "allreduce");
  if (algo == AllreduceAlgo::kAuto)
    algo =
        default_algo(t.desc, nelems * sizeof(T), (ctx.flags & device::Context::kDeviceHeap) != 0);
  if (!runs_on(algo, t.desc))
    SYMMETRA_FATAL(ctx, "allreduce",
                   "the %s algorithm loads and stores other members' memory, and the team spans "
                   "hosts: use hierarchical, put_ring, recursive_doubling, ll_two_shot or auto",
                   algo_name(algo));
  if (ch.count > 1 && !takes_channels(algo))
    SYMMETRA_FATAL(ctx, "allreduce", "the %s algorithm runs as one channel, not %d",
                   algo_name(algo), ch.count);
  switch (algo) {
    case AllreduceAlgo::kOneShot:
      return allreduce_one_shot(g, ctx, team, dest, source, nelems, op, ch);
    case AllreduceAlgo::kTwoShot:
      return allreduce_two_shot(g, ctx, team, dest, source, nelems, op, ch);
    case AllreduceAlgo::kRecursiveDoubling:
      return allreduce_ll(g, ctx, team, dest, source, nelems, op, 1, ch);
    case AllreduceAlgo::kLLTwoShot:
      return allreduce_ll(g, ctx, team, dest, source, nelems, op, t.size(), ch);
    case AllreduceAlgo::kHierarchical:
      return allreduce_ll(g, ctx, team, dest, source, nelems, op, team_local(t.desc), ch);
    case AllreduceAlgo::kRing:
      return allreduce_ring(g, ctx, team, dest, source, nelems, op, ch);
    case AllreduceAlgo::kPutRing:
      return allreduce_put_ring(g, ctx, team, dest, source, nelems, op, team_local(t.desc), ch);
    case AllreduceAlgo::kNccl:
      SYMMETRA_FATAL(ctx, "allreduce",
                     "the nccl backend runs from the host and stream forms, not in device code");
    case AllreduceAlgo::kAuto:
      break;
  }
  SYMMETRA_FATAL(ctx, "allreduce", "unknown algorithm %d", static_cast<int>(algo));
}

}  // namespace symmetra::coll
