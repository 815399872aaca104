// All-gather around a ring (OpenSHMEM fcollect, ring variant): in step s (s = 0 .. n-2) member r
// forwards block (r - s) mod n to member r + 1 with a put_signal, and member r + 1 waits for that
// signal before forwarding the block in turn. Every link carries n - 1 blocks and no member
// sends more than one block at a time: the variant for links that are slower than memory (PEs
// on different hosts, PCIe); fcollect and fcollect_read (fcollect_direct.hpp) suit all-to-all
// load/store fabrics.
//
// Protocol (counters only grow, nothing is reset): call k (coll_seq) starts with a credit from
// the successor (its ready word on this PE, as in permute_signal.hpp), so no block lands in a
// dest the successor is still reading from call k-1; the predecessor's signals add to
// chunk_signal, whose running total is kept in chunk_base.
// Threads: every thread of `g`, on every member, same arguments. dest must be symmetric.
// Ordering: dest complete and source reusable on return; no barrier.
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/coll/team_collective.hpp"
#include "symmetra/device/amo.hpp"
#include "symmetra/device/impl/copy.hpp"
#include "symmetra/device/signal.hpp"

namespace symmetra::coll {

template <class Group, class T>
SYMMETRA_INLINE void fcollect_ring(Group g, const device::Context& ctx, int team, T* dest,
                                   const T* source, std::size_t nelems) {
  const detail::TeamView t = detail::team_view(ctx, team, "fcollect_ring");
  if (device::detail::checks_on(ctx))
    device::detail::check_symmetric(ctx, "fcollect_ring", dest, 1);
  const int n = t.size(), r = t.rank();
  T* mine = dest + static_cast<std::size_t>(r) * nelems;
  if (mine != source) device::detail::group_copy(g, mine, source, nelems * sizeof(T));
  if (n == 1) {
    g.sync();
    return;
  }
  device::detail::HeapHeader* h = device::detail::my_header(ctx);
  const int slot = t.desc.slot, next = (r + 1) % n, prev = (r + n - 1) % n;
  g.sync();
  const std::uint64_t k = h->coll_seq[slot] + 1;
  const std::uint64_t base = h->chunk_base[slot];
  g.sync();
  if (g.thread_rank() == 0) {
    h->coll_seq[slot] = k;
    std::uint64_t* ready = device::detail::ready_row(h, slot, ctx.n_pes);
    device::atomic_set(ctx, &ready[r], k, t.world(prev));
    device::detail::wait_value(ctx, "fcollect_ring", &ready[next], Cmp::kGe, k);
  }
  g.sync();
  for (int s = 0; s < n - 1; ++s) {
    const std::size_t b = static_cast<std::size_t>((r - s + n) % n);
    if (s > 0) {
      if (g.thread_rank() == 0)
        device::detail::wait_value(ctx, "fcollect_ring", &h->chunk_signal[slot], Cmp::kGe,
                                   base + s);
      g.sync();
    }
    device::put_signal(g, ctx, dest + b * nelems, s == 0 ? source : dest + b * nelems, nelems,
                       &h->chunk_signal[slot], 1, SignalOp::kAdd, t.world(next));
  }
  if (g.thread_rank() == 0) {
    device::detail::wait_value(ctx, "fcollect_ring", &h->chunk_signal[slot], Cmp::kGe,
                               base + static_cast<std::uint64_t>(n - 1));
    h->chunk_base[slot] = base + static_cast<std::uint64_t>(n - 1);
  }
  g.sync();
}

}  // namespace symmetra::coll
