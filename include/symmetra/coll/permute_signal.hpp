// Collective permute over any set of source -> target pairs (ring attention's shift), one signal
// per chunk so that a receiver can consume chunk c while chunk c+1 is still in flight.
//
// Each member passes `to` (team rank it sends its nelems-element source to, or -1) and `from`
// (team rank it receives from into dest, or -1); the pairs must match across members. A receiver
// sees chunk c (elements [c*chunk, min((c+1)*chunk, nelems))) when on_chunk(c, ptr, count) runs.
//
// Protocol (nothing is reset, counters only grow; docs/memory_model.md): call k of the team
// (this PE's coll_seq) starts with the receiver granting a credit `k` to its sender (the
// sender's ready word for this receiver), which waits for it before writing dest: the receiver
// has finished with call k-1's data. Chunks are put_signal adds on the receiver's chunk_signal;
// the receiver waits for its running total.
// Threads: every thread of `g`. Ordering: each chunk's data before its signal; source reusable
// and dest complete on return; no barrier.
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/coll/team_collective.hpp"
#include "symmetra/device/amo.hpp"
#include "symmetra/device/signal.hpp"

namespace symmetra::coll {

struct NoChunkCallback {
  template <class T>
  SYMMETRA_INLINE void operator()(std::size_t, const T*, std::size_t) const {}
};

template <class Group, class T, class OnChunk = NoChunkCallback>
SYMMETRA_INLINE void permute(Group g, const device::Context& ctx, int team, T* dest, const T* source,
                             std::size_t nelems, int to, int from, std::size_t chunk_elems,
                             OnChunk on_chunk = {}) {
  const detail::TeamView t = detail::team_view(ctx, team, "permute");
  if (device::detail::checks_on(ctx) &&
      (to < -1 || to >= t.size() || from < -1 || from >= t.size() || chunk_elems == 0))
    SYMMETRA_FATAL(ctx, "permute", "to %d / from %d / chunk %llu do not fit a team of %d PEs", to, from,
                   static_cast<unsigned long long>(chunk_elems), t.size());
  device::detail::HeapHeader* h = device::detail::my_header(ctx);
  const int slot = t.desc.slot;
  const std::size_t chunks = (nelems + chunk_elems - 1) / chunk_elems;
  g.sync();
  const std::uint64_t k = h->coll_seq[slot] + 1;  // read by every thread before thread 0 moves on
  g.sync();
  if (g.thread_rank() == 0) {
    h->coll_seq[slot] = k;
    std::uint64_t* ready = device::detail::ready_row(h, slot, ctx.n_pes);
    if (from >= 0) device::atomic_set(ctx, &ready[t.rank()], k, t.world(from));
    if (to >= 0) device::detail::wait_value(ctx, "permute", &ready[to], Cmp::kGe, k);
  }
  g.sync();
  if (to >= 0) {
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::size_t first = c * chunk_elems;
      const std::size_t n = nelems - first < chunk_elems ? nelems - first : chunk_elems;
      device::put_signal(g, ctx, dest + first, source + first, n, &h->chunk_signal[slot], 1,
                         SignalOp::kAdd, t.world(to));
    }
  }
  if (from >= 0) {
    const std::uint64_t base = h->chunk_base[slot];
    for (std::size_t c = 0; c < chunks; ++c) {
      if (g.thread_rank() == 0)
        device::detail::wait_value(ctx, "permute", &h->chunk_signal[slot], Cmp::kGe, base + c + 1);
      g.sync();
      const std::size_t first = c * chunk_elems;
      on_chunk(c, static_cast<const T*>(dest + first), nelems - first < chunk_elems ? nelems - first : chunk_elems);
    }
    g.sync();
    if (g.thread_rank() == 0) h->chunk_base[slot] = base + chunks;
  }
  g.sync();
}

}  // namespace symmetra::coll
