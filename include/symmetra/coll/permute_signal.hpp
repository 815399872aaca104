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
// Channels (channel.hpp, ch.count > 1): channel c moves its range of the message, chunked the
// same way, after a channel sync of the team instead of the credit (permute_channel says why);
// on_chunk then numbers each channel's chunks from 0; its pointer and count say where they are.
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/coll/call.hpp"
#include "symmetra/coll/channel.hpp"
#include "symmetra/coll/credit.hpp"
#include "symmetra/coll/team_collective.hpp"
#include "symmetra/device/amo.hpp"
#include "symmetra/device/signal.hpp"

namespace symmetra::coll {

namespace detail {

// Channel ch.index of a permute of ch.count > 1 channels: its range of the message, in chunks of
// chunk_elems, on the channel's signal words. A channel sync of the team first stands in for the
// credit (every member's channel entered this call, so its receiver is done with the last one):
// a credit per channel would need a word per channel and receiver, and call counts that agree
// across channels, which calls of different channel counts do not give.
template <class Group, class T, class OnChunk>
SYMMETRA_INLINE void permute_channel(Group g, const device::Context& ctx, int team,
                                     const TeamView& t, T* dest, const T* source,
                                     std::size_t nelems, int to, int from, std::size_t chunk_elems,
                                     Channel ch, OnChunk& on_chunk) {
  device::detail::HeapHeader* h = device::detail::my_header(ctx);
  std::uint64_t* const signal = channel_signal(h, t.desc.slot, ch);
  std::uint64_t* const consumed = channel_base(h, t.desc.slot, ch);
  const Channel::Range part = ch.range(nelems, vec_elems<T>());
  const std::size_t chunks = (part.count + chunk_elems - 1) / chunk_elems;
  auto piece = [&](std::size_t c) {
    const std::size_t first = part.first + c * chunk_elems, left = part.first + part.count - first;
    return Channel::Range{first, left < chunk_elems ? left : chunk_elems};
  };
  channel_sync(g, ctx, team, ch);
  if (to >= 0)
    for (std::size_t c = 0; c < chunks; ++c)
      device::put_signal(g, ctx, dest + piece(c).first, source + piece(c).first, piece(c).count,
                         signal, 1, SignalOp::kAdd, t.world(to));
  if (from >= 0) {
    const std::uint64_t base = *consumed;
    for (std::size_t c = 0; c < chunks; ++c) {
      if (g.thread_rank() == 0)
        device::detail::wait_value(ctx, "permute", signal, Cmp::kGe, base + c + 1);
      g.sync();
      on_chunk(c, static_cast<const T*>(dest + piece(c).first), piece(c).count);
    }
    g.sync();
    if (g.thread_rank() == 0) *consumed = base + chunks;
  }
  g.sync();
}

}  // namespace detail

template <class Group, class T, class OnChunk = NoChunkCallback>
SYMMETRA_INLINE void permute(Group g, const device::Context& ctx, int team, T* dest,
                             const T* source, std::size_t nelems, int to, int from,
                             std::size_t chunk_elems, OnChunk on_chunk = {}, Channel ch = {}) {
  const detail::TeamView t = detail::team_view(ctx, team, "permute");
  if (device::detail::checks_on(ctx)) {
    if (to < -1 || to >= t.size() || from < -1 || from >= t.size() || chunk_elems == 0)
      SYMMETRA_FATAL(ctx, "permute", "to %d / from %d / chunk %llu do not fit a team of %d PEs", to,
                     from, static_cast<unsigned long long>(chunk_elems), t.size());
    detail::check_channel(ctx, "permute", ch, t.size());
  }
  if (ch.count > 1)
    return detail::permute_channel(g, ctx, team, t, dest, source, nelems, to, from, chunk_elems, ch,
                                   on_chunk);
  device::detail::HeapHeader* h = device::detail::my_header(ctx);
  const int slot = t.desc.slot;
  const std::size_t chunks = (nelems + chunk_elems - 1) / chunk_elems;
  const std::uint64_t k = detail::credit_grant(g, ctx, t, [&](auto grant) {
    if (from >= 0) grant(from);
  });
  if (to >= 0) {
    detail::credit_await(g, ctx, t, k, to, "permute");
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
      on_chunk(c, static_cast<const T*>(dest + first),
               nelems - first < chunk_elems ? nelems - first : chunk_elems);
    }
    g.sync();
    if (g.thread_rank() == 0) h->chunk_base[slot] = base + chunks;
  }
  g.sync();
}

}  // namespace symmetra::coll
