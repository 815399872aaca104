// All-reduce by direct reads of the members' symmetric buffers (the custom all-reduce of vLLM
// and TensorRT-LLM, on load/store fabrics):
//  - one-shot: every member reads the whole of every member's source and reduces it
//    (coll::reduce, reduce_direct.hpp); m reads of the message per member, two syncs.
//  - two-shot: member r reduces slice r (reading every member's source) and stores it into every
//    member's dest; one read and one write of the message per member, two syncs. (Reading the
//    slices back from their owners instead costs a third sync and a round trip per load.)
// Results are bit-identical on every member (each slice is reduced once, in team order).
// Threads: every thread of `g`, on every member, same arguments. source and dest symmetric and
// not overlapping. Ordering: a sync first (sources written), a sync last (dest complete, and no
// member rewrites a buffer another still reads). Channels (channel.hpp): channel c runs the
// algorithm on its range of the message.
#pragma once

#include <cstddef>

#include "symmetra/coll/reduce_direct.hpp"

namespace symmetra::coll {

template <class Group, class T>
SYMMETRA_INLINE void allreduce_one_shot(Group g, const device::Context& ctx, int team, T* dest,
                                        const T* source, std::size_t nelems, ReduceOp op,
                                        Channel ch = {}) {
  reduce(g, ctx, team, dest, source, nelems, op, ch);
}

template <class Group, class T>
SYMMETRA_INLINE void allreduce_two_shot(Group g, const device::Context& ctx, int team, T* dest,
                                        const T* source, std::size_t nelems, ReduceOp op,
                                        Channel ch = {}) {
  const detail::TeamView t = detail::team_view(ctx, team, "allreduce_two_shot");
  detail::check_reduce(ctx, "allreduce_two_shot", op, dest, nelems, source, nelems);
  if (device::detail::checks_on(ctx)) {
    device::detail::check_symmetric(ctx, "allreduce_two_shot", source, nelems * sizeof(T));
    device::detail::check_symmetric(ctx, "allreduce_two_shot", dest, nelems * sizeof(T));
    detail::check_channel(ctx, "allreduce_two_shot", ch, t.size());
  }
  // A channel is a two-shot of its own range.
  const Channel::Range part = ch.range(nelems, vec_elems<T>());
  dest += part.first;
  source += part.first;
  nelems = part.count;
  // This member's slice, of whole 16-byte groups where possible, so that the copies stay
  // vectorized.
  const Part mine = part_of(nelems, t.size(), t.rank(), vec_elems<T>());
  channel_sync(g, ctx, team, ch);  // every source written, every dest free for this call
  detail::reduce_range_push(g, ctx, t, dest, source, mine.first, mine.count, op);
  channel_sync(g, ctx, team, ch, true);  // every slice pushed; nobody reads a source any more
}

}  // namespace symmetra::coll
