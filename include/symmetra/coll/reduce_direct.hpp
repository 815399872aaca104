// Reductions, direct read (OpenSHMEM 1.5 shmem_<T>_<op>_reduce, NVSHMEM reducescatter): every
// member reads the members' source elements through the mapped heap and combines them in team
// order (reduce_op.hpp), so all members get bit-identical results.
//
// reduce: dest[i] = op over members k of source_k[i], i < nreduce, on every member.
// reduce_scatter: source holds n_team * nreduce elements; member r gets
//   dest[i] = op over k of source_k[r * nreduce + i].
// dest must not overlap source here (the host forms accept overlap: they reduce into a
// temporary first). Threads: every thread of `g`, on every member, same arguments.
// Ordering: a sync first (every source written), a sync last (no source rewritten while read).
// Channels (channel.hpp): channel c reduces its range of the nreduce elements.
#pragma once

#include <cstddef>

#include "symmetra/coll/allreduce_ll.hpp"
#include "symmetra/coll/channel.hpp"
#include "symmetra/coll/reduce_op.hpp"
#include "symmetra/coll/reduce_range.hpp"
#include "symmetra/coll/reduce_scatter_ll.hpp"
#include "symmetra/coll/team_collective.hpp"
#include "symmetra/device/rma.hpp"

namespace symmetra::coll {

namespace detail {

template <class T>
SYMMETRA_INLINE void check_reduce(const device::Context& ctx, const char* op_name, ReduceOp op,
                                  const T* dest, std::size_t dest_n, const T* source,
                                  std::size_t source_n) {
  if (!op_defined<T>(op)) SYMMETRA_FATAL(ctx, op_name, "%s", op_undefined_text());
  if (ranges_overlap(dest, dest_n * sizeof(T), source, source_n * sizeof(T)))
    SYMMETRA_FATAL(ctx, op_name,
                   "dest and source overlap (use the host form for in-place reductions)");
}

}  // namespace detail

template <class Group, class T>
SYMMETRA_INLINE void reduce(Group g, const device::Context& ctx, int team, T* dest, const T* source,
                            std::size_t nreduce, ReduceOp op, Channel ch = {}) {
  const detail::TeamView t = detail::team_view(ctx, team, "reduce");
  detail::check_reduce(ctx, "reduce", op, dest, nreduce, source, nreduce);
  if (device::detail::checks_on(ctx)) {
    device::detail::check_symmetric(ctx, "reduce", source, nreduce * sizeof(T));
    detail::check_channel(ctx, "reduce", ch, t.size());
  }
  // Across hosts the same result through the LL hierarchy, whose packets reach other hosts
  // through the transport (reduce_range loads every member's source).
  if (!t.one_host())
    return allreduce_ll(g, ctx, team, dest, source, nreduce, op, team_local(t.desc), ch);
  const Channel::Range part = ch.range(nreduce, vec_elems<T>());
  channel_sync(g, ctx, team, ch);
  detail::reduce_range(g, ctx, t, dest + part.first, source, part.first, part.count, op);
  channel_sync(g, ctx, team, ch);
}

template <class Group, class T>
SYMMETRA_INLINE void reduce_scatter(Group g, const device::Context& ctx, int team, T* dest,
                                    const T* source, std::size_t nreduce, ReduceOp op,
                                    Channel ch = {}) {
  const detail::TeamView t = detail::team_view(ctx, team, "reduce_scatter");
  const std::size_t total = nreduce * static_cast<std::size_t>(t.size());
  detail::check_reduce(ctx, "reduce_scatter", op, dest, nreduce, source, total);
  if (device::detail::checks_on(ctx)) {
    device::detail::check_symmetric(ctx, "reduce_scatter", source, total * sizeof(T));
    detail::check_channel(ctx, "reduce_scatter", ch, t.size());
  }
  // Across hosts: over LL packets, which reach other hosts through the transport
  // (reduce_range loads every member's source).
  if (!t.one_host()) return reduce_scatter_ll(g, ctx, team, dest, source, nreduce, op, ch);
  const Channel::Range part = ch.range(nreduce, vec_elems<T>());
  channel_sync(g, ctx, team, ch);
  detail::reduce_range(g, ctx, t, dest + part.first, source,
                       static_cast<std::size_t>(t.rank()) * nreduce + part.first, part.count, op);
  channel_sync(g, ctx, team, ch);
}

}  // namespace symmetra::coll
