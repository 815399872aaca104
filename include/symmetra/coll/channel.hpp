// Channels: one collective call split into `count` independent parts (NCCL's channels), so that
// several GPU blocks per PE move one message at once. Channel c works on its own range of every
// block of the message (Channel::range) and synchronizes only with channel c of the other
// members, on its own words (HeapHeader::chan_*): parts never wait for each other, so a grid of
// `count` blocks needs no grid-wide barrier, and latency stays that of one block.
//
// Contract, for a call made with Channel{c, count} on every c in [0, count):
//  - every member makes the call for every channel, with the same count and arguments;
//  - the channels of one PE may run concurrently (one block each) or one after the other in
//    channel order (CPU tests do that): channel c never waits on another channel;
//  - the source must be complete before any channel starts (the host and stream forms: the
//    kernel starts after the stream's earlier work), and dest is complete only once every
//    channel returned (the kernel's end). Inside a user kernel that writes the source itself,
//    only count == 1 (the default) carries the usual "sync first" guarantee.
// count == 1 is the plain algorithm: the team's own sync words, as before channels existed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/coll/team_collective.hpp"
#include "symmetra/core/atomic.hpp"
#include "symmetra/device/impl/heap_header.hpp"
#include "symmetra/device/impl/remote.hpp"
#include "symmetra/device/impl/wait_core.hpp"

namespace symmetra::coll {

// Elements [first, first + count) of a message.
struct Part {
  std::size_t first, count;
};

// Part k of n elements cut into `parts`: whole groups of `align` elements (so that copies stay
// vectorized), spread as evenly as that allows; the last parts may get none. The split of the
// channels, and of the direct algorithms' slices among members.
SYMMETRA_INLINE Part part_of(std::size_t n, int parts, int k, std::size_t align = 1) {
  const std::size_t c = static_cast<std::size_t>(parts);
  const std::size_t per = ((n + c - 1) / c + align - 1) / align * align;
  const std::size_t f = per * static_cast<std::size_t>(k);
  const std::size_t first = f < n ? f : n;
  const std::size_t last = f + per < n ? f + per : n;
  return {first, last - first};
}

struct Channel {
  int index = 0;
  int count = 1;

  // Channel `index`'s part of n elements (part_of).
  using Range = Part;
  SYMMETRA_INLINE Range range(std::size_t n, std::size_t align = 1) const {
    return part_of(n, count, index, align);
  }
};

// Channels for a call moving `bytes` in all: one per `per_channel` bytes, 1 to `cap`.
SYMMETRA_INLINE int channels_for(std::uint64_t bytes, std::uint64_t per_channel, int cap) {
  const std::uint64_t n = per_channel == 0 ? 1 : (bytes + per_channel - 1) / per_channel;
  return n < 1 ? 1 : n > static_cast<std::uint64_t>(cap) ? cap : static_cast<int>(n);
}

// Elements per 16 bytes: the alignment unit of a channel's range for element type T.
template <class T>
SYMMETRA_INLINE constexpr std::size_t vec_elems() {
  return sizeof(T) >= 16 ? 1 : 16 / sizeof(T);
}

namespace detail {

// Whether `ch` is a valid channel of a team of `size` members.
SYMMETRA_INLINE void check_channel(const device::Context& ctx, const char* op, Channel ch,
                                   int size) {
  if (ch.count < 1 || ch.count > device::detail::kMaxChannels || ch.index < 0 ||
      ch.index >= ch.count || (ch.count > 1 && size > (1 << device::detail::kChannelRounds)))
    SYMMETRA_FATAL(
        ctx, op, "channel %d of %d is not valid (at most %d channels, teams of at most %d PEs)",
        ch.index, ch.count, device::detail::kMaxChannels, 1 << device::detail::kChannelRounds);
}

// device::sync on channel ch.index's own words (dissemination, as sync_impl.hpp).
SYMMETRA_INLINE void channel_sync_thread(const device::Context& ctx, const TeamView& t,
                                         Channel ch) {
  namespace dd = device::detail;
  dd::HeapHeader* me = dd::my_header(ctx);
  const int slot = t.desc.slot, c = ch.index;
  const std::uint64_t seq = me->chan_seq[slot][c] + 1;
  me->chan_seq[slot][c] = seq;
  int round = 0;
  for (int dist = 1; dist < t.size(); dist <<= 1, ++round) {
    const int to = t.world((t.rank() + dist) % t.size());
    dd::set_word(ctx, &me->chan_sync[slot][c][round], seq, to);
    dd::wait_value(ctx, "sync (channel)", &me->chan_sync[slot][c][round], Cmp::kGe, seq);
  }
}

}  // namespace detail

// device::sync (quiet_first: device::barrier) of `team`, on channel ch's words when the call has
// several channels. Threads: every thread of `g`.
template <class Group>
SYMMETRA_INLINE void channel_sync(Group g, const device::Context& ctx, int team, Channel ch,
                                  bool quiet_first = false) {
  if (ch.count == 1)
    return quiet_first ? device::barrier(g, ctx, team) : device::sync(g, ctx, team);
  const detail::TeamView t = detail::team_view(ctx, team, "sync (channel)");
  g.sync();
  if (g.thread_rank() == 0) {
    if (quiet_first) device::quiet(ctx);
    detail::channel_sync_thread(ctx, t, ch);
  }
  g.sync();
}

// The chunk signal and consumed-chunk words of the call's channel (allreduce_ring.hpp).
SYMMETRA_INLINE std::uint64_t* channel_signal(device::detail::HeapHeader* h, int slot, Channel ch) {
  return ch.count == 1 ? &h->chunk_signal[slot] : &h->chan_signal[slot][ch.index];
}
SYMMETRA_INLINE std::uint64_t* channel_base(device::detail::HeapHeader* h, int slot, Channel ch) {
  return ch.count == 1 ? &h->chunk_base[slot] : &h->chan_base[slot][ch.index];
}

}  // namespace symmetra::coll
