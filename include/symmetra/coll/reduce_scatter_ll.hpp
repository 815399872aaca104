// Reduce-scatter over LL packets (ll_packet.hpp): member r's dest is block r of the reduction of
// every member's source (m blocks of nreduce elements each). In each chunk every member sends
// its part of block j to member j, into the region of the sender, and reduces its own block from
// the m - 1 regions it receives, in team order. No step needs a fence, a signal or a barrier:
// every packet carries its chunk's flag. Every pair exchanges in both directions in every chunk,
// which is the credit before a region is reused (allreduce_ll.hpp says why).
//
// What reduce_scatter runs when the team spans hosts: the direct algorithm loads every
// member's source, and these packets reach members on other hosts through the transport.
// Threads: every thread of `g`, on every member, same arguments. dest and source are any memory
// of this PE and must not overlap. Ordering: dest complete and source reusable on return.
// Channels (channel.hpp): channel c reduces its range of every block, in its workspace lane.
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/coll/channel.hpp"
#include "symmetra/coll/ll_packet.hpp"
#include "symmetra/coll/team_collective.hpp"

namespace symmetra::coll {

template <class Group, class T>
SYMMETRA_INLINE void reduce_scatter_ll(Group g, const device::Context& ctx, int team, T* dest,
                                       const T* source, std::size_t nreduce, ReduceOp op,
                                       Channel ch = {}) {
  using detail::LLLine;
  namespace dd = device::detail;
  constexpr int E = detail::Unit<T>::kElems;
  constexpr const char* kOp = "reduce_scatter_ll";
  const detail::TeamView t = detail::team_view(ctx, team, kOp);
  const int m = t.size(), r = t.rank();
  if (!op_defined<T>(op)) SYMMETRA_FATAL(ctx, kOp, "%s", op_undefined_text());
  if (dd::checks_on(ctx)) detail::check_channel(ctx, kOp, ch, m);
  const Channel::Range part = ch.range(nreduce, vec_elems<T>());
  const int slot = t.desc.slot;
  const std::size_t lines =
      dd::lane_bytes(ctx, slot) / (2u * static_cast<std::size_t>(m) * sizeof(LLLine));
  if (lines == 0)
    SYMMETRA_FATAL(ctx, kOp,
                   "the collective workspace lane (%llu bytes) is too small for %d regions",
                   static_cast<unsigned long long>(dd::lane_bytes(ctx, slot)), m);
  auto* ws = reinterpret_cast<LLLine*>(dd::lane(ctx, slot, ch.index));
  std::uint64_t* const seq = dd::lane_seq(ctx, dd::my_header(ctx), slot, ch.index);
  const std::size_t chunk_elems = lines * E;
  const std::size_t tr = static_cast<std::size_t>(g.thread_rank()),
                    gs = static_cast<std::size_t>(g.size());
  const T* const src = source + part.first;  // this channel's part of block j: src + j * nreduce
  T* const dst = dest + part.first;

  for (std::size_t first = 0; first < part.count; first += chunk_elems) {
    const std::size_t cnt = part.count - first < chunk_elems ? part.count - first : chunk_elems;
    g.sync();
    const std::uint64_t k = *seq + 1;
    g.sync();
    if (tr == 0) *seq = k;
    const std::uint32_t flag = detail::ll_flag(k);
    LLLine* const mine = ws + (k & 1) * static_cast<std::size_t>(m) * lines;
    auto region = [&](int x) { return mine + static_cast<std::size_t>(x) * lines; };
    const std::size_t units = (cnt + E - 1) / E;
    auto valid = [&](std::size_t u) -> int {
      const std::size_t e0 = u * E;
      return e0 >= cnt ? 0
                       : static_cast<int>(cnt - e0 < static_cast<std::size_t>(E) ? cnt - e0 : E);
    };
    auto block = [&](int j) { return src + static_cast<std::size_t>(j) * nreduce + first; };
    for (int i = 1; i < m; ++i) {
      const int j = (r + i) % m, pe = t.world(j);
      auto pick = [&](std::size_t u) { return detail::load_unit(block(j) + u * E, valid(u)); };
      // Across hosts: a GPU builds the lines in its own region r, which nobody sends to.
      if (device::detail::is_remote(ctx, pe)) {
        detail::ll_put_remote(g, ctx, kOp, region(r), region(r), units, pick, flag, pe);
        continue;
      }
      LLLine* const to = ctx.peer(region(r), pe);
      for (std::size_t u = tr; u < units; u += gs) detail::ll_store(to + u, pick(u), flag);
      dd::notify(ctx, pe, region(r), units * sizeof(LLLine));
    }
    for (std::size_t u = tr; u < units; u += gs) {
      detail::UnitAccum<T> acc{};  // in the accumulator type: one rounding for the whole team
      for (int j = 0; j < m; ++j) {
        const std::uint64_t x = j == r ? detail::load_unit(block(r) + u * E, valid(u))
                                       : detail::ll_wait(ctx, kOp, region(j) + u, flag, t.world(j));
        if (j == 0)
          acc.set(x);
        else
          acc.add(op, x);
      }
      detail::store_unit(dst + first + u * E, acc.get(), valid(u));
    }
    g.sync();
  }
  g.sync();
}

}  // namespace symmetra::coll
