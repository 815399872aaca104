// All-to-all, direct (OpenSHMEM 1.5 shmem_alltoall / shmem_alltoalls): block k of source goes
// to member k, landing in block <my rank> of its dest. alltoalls takes element strides.
//
// Threads: every thread of `g`, on every member, same arguments. Ordering: a member writes into
// another's dest only after that member entered the call (unless Context::kDestReadyByProgram
// says the program saw to that, credit.hpp); dest complete and source reusable on return. One
// channel: credit and signal (credit.hpp), two one-way hops. Several channels (channel.hpp;
// alltoall): channel c moves its range of every block between a channel sync and a channel
// barrier.
#pragma once

#include <cstddef>

#include "symmetra/coll/channel.hpp"
#include "symmetra/coll/credit.hpp"
#include "symmetra/coll/team_collective.hpp"
#include "symmetra/device/rma.hpp"

namespace symmetra::coll {

template <class Group, class T>
SYMMETRA_INLINE void alltoall(Group g, const device::Context& ctx, int team, T* dest,
                              const T* source, std::size_t nelems, Channel ch = {}) {
  const detail::TeamView t = detail::team_view(ctx, team, "alltoall");
  if (device::detail::checks_on(ctx)) detail::check_channel(ctx, "alltoall", ch, t.size());
  const int me = t.rank(), m = t.size();
  auto block = [&](auto* p, int r) { return p + static_cast<std::size_t>(r) * nelems; };
  if (ch.count == 1) {
    const detail::Credits credits = detail::dest_credits(ctx);
    const std::uint64_t k = detail::credit_grant(g, ctx, t, detail::all_but(me, m), credits);
    device::put(g, ctx, block(dest, me), block(source, me), nelems, t.world(me));
    detail::credit_send(
        g, ctx, t, k, "alltoall", detail::all_but(me, m),
        [&](int r, int pe) {
          device::put_nbi(g, ctx, block(dest, me), block(source, r), nelems, pe);
        },
        credits);
    return detail::credit_wait(g, ctx, t, static_cast<std::uint64_t>(m - 1), "alltoall", credits);
  }
  const Channel::Range part = ch.range(nelems, vec_elems<T>());
  channel_sync(g, ctx, team, ch);
  for (int i = 0; i < t.size(); ++i) {
    const int k = (t.rank() + i) % t.size();
    device::put(g, ctx, dest + static_cast<std::size_t>(t.rank()) * nelems + part.first,
                source + static_cast<std::size_t>(k) * nelems + part.first, part.count, t.world(k));
  }
  channel_sync(g, ctx, team, ch, true);
}

// dest[dst * (rank * nelems + i)] on member k = source[sst * (k * nelems + i)], i < nelems.
// One channel, credit and signal.
template <class Group, class T>
SYMMETRA_INLINE void alltoalls(Group g, const device::Context& ctx, int team, T* dest,
                               const T* source, std::ptrdiff_t dst, std::ptrdiff_t sst,
                               std::size_t nelems) {
  const detail::TeamView t = detail::team_view(ctx, team, "alltoalls");
  const int me = t.rank(), m = t.size();
  T* const to = dest + dst * static_cast<std::ptrdiff_t>(static_cast<std::size_t>(me) * nelems);
  auto from = [&](int r) {
    return source + sst * static_cast<std::ptrdiff_t>(static_cast<std::size_t>(r) * nelems);
  };
  const detail::Credits credits = detail::dest_credits(ctx);
  const std::uint64_t k = detail::credit_grant(g, ctx, t, detail::all_but(me, m), credits);
  device::iput(g, ctx, to, from(me), dst, sst, nelems, t.world(me));
  detail::credit_send(
      g, ctx, t, k, "alltoalls", detail::all_but(me, m),
      [&](int r, int pe) { device::iput(g, ctx, to, from(r), dst, sst, nelems, pe); }, credits);
  detail::credit_wait(g, ctx, t, static_cast<std::uint64_t>(m - 1), "alltoalls", credits);
}

}  // namespace symmetra::coll
