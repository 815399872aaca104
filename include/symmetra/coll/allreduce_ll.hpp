// All-reduce over LL packets (ll_packet.hpp), NVRAR's hierarchy: the team is H hosts of L
// members each (team rank = host * L + local rank), and each chunk of the message goes
//  1. reduce-scatter inside each host: local member l receives slice l of every local member's
//     source and reduces it in local-rank order;
//  2. recursive doubling across hosts among the members with the same l: log2(H) exchanges with
//     partner host h ^ 2^j; with H not a power of two, host h >= H2 (the largest power of two
//     <= H) first hands its slice to host h - H2 and gets the result back at the end;
//  3. all-gather inside each host: member l sends its reduced slice to every local member.
// L = 1 is plain recursive doubling over the team; L = team size is a two-shot over LL packets.
// No step needs a fence, a signal word or a barrier: every packet carries its call's flag.
//
// Workspace (the team slot's lane for the channel, device/impl/heap_header.hpp): two parities x
// (2L + log2(H2) + 2) regions of equal size; chunk k (the lane's count, lane_seq, which every
// member advances alike) uses parity k & 1.
// A sender writes a region of parity k & 1 in chunk k only after it received packets from the
// region's owner in chunk k-1, which that owner sent after finishing chunk k-2 (each member
// ends a chunk with a group sync, and every pair that writes to each other in a chunk does so in
// both directions, at least one line each): the credit before reuse is the peer's own traffic.
//
// Threads: every thread of `g`, on every member, same arguments; a thread owns the same units
// of every slice in every phase, so phases need no group sync. dest and source are any memory
// of this PE (only the workspace is symmetric); dest may equal source.
// Ordering: dest complete on return; source reusable on return. Results are bit-identical on
// every member (every combine is commutative and each value is combined once per pair).
// Channels (channel.hpp): channel c runs the algorithm on its range, in lane c of the workspace
// (on the GPU: kMaxChannels fixed lanes; on the CPU one lane, the channels run in turn).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "symmetra/coll/channel.hpp"
#include "symmetra/coll/ll_packet.hpp"
#include "symmetra/coll/team_collective.hpp"

namespace symmetra::coll {

template <class Group, class T>
SYMMETRA_INLINE void allreduce_ll(Group g, const device::Context& ctx, int team, T* dest,
                                  const T* source, std::size_t nelems, ReduceOp op, int local,
                                  Channel ch = {}) {
  using detail::LLLine;
  constexpr int E = detail::Unit<T>::kElems;
  constexpr const char* kOp = "allreduce_ll";
  const detail::TeamView t = detail::team_view(ctx, team, kOp);
  const int m = t.size(), r = t.rank();
  if (local < 1 || m % local != 0)
    SYMMETRA_FATAL(ctx, kOp, "%d members per host does not divide a team of %d", local, m);
  if (!op_defined<T>(op)) SYMMETRA_FATAL(ctx, kOp, "%s", op_undefined_text());
  if (device::detail::checks_on(ctx)) detail::check_channel(ctx, kOp, ch, m);
  {  // a channel reduces its own range, in its own workspace lane, with its own chunk count
    const Channel::Range part = ch.range(nelems, vec_elems<T>());
    dest += part.first;
    source += part.first;
    nelems = part.count;
  }
  const int L = local, H = m / L, h = r / L, l = r % L;
  int H2 = 1, R = 0;
  while (H2 * 2 <= H) H2 *= 2, ++R;
  const bool is_extra = h >= H2, has_extra = h + H2 < H;
  const int regions = 2 * L + R + 2;
  const int kRsIn = 0, kRd = L, kExtraIn = L + R, kExtraOut = L + R + 1, kAgIn = L + R + 2;
  const int slot = t.desc.slot;
  const std::size_t lines = device::detail::lane_bytes(ctx, slot) / (2u * regions * sizeof(LLLine));
  if (lines == 0)
    SYMMETRA_FATAL(ctx, kOp,
                   "the collective workspace lane (%llu bytes) is too small for %d regions",
                   static_cast<unsigned long long>(device::detail::lane_bytes(ctx, slot)), regions);
  auto* ws = reinterpret_cast<LLLine*>(device::detail::lane(ctx, slot, ch.index));
  std::uint64_t* const seq =
      device::detail::lane_seq(ctx, device::detail::my_header(ctx), slot, ch.index);
  const std::size_t chunk_elems = lines * E * static_cast<std::size_t>(L);
  const std::size_t tr = static_cast<std::size_t>(g.thread_rank()),
                    gs = static_cast<std::size_t>(g.size());
  auto world = [&](int host, int lr) { return t.world(host * L + lr); };

  for (std::size_t first = 0; first < nelems; first += chunk_elems) {
    const std::size_t cnt = nelems - first < chunk_elems ? nelems - first : chunk_elems;
    g.sync();
    const std::uint64_t k = *seq + 1;
    g.sync();
    if (tr == 0) *seq = k;
    const std::uint32_t flag = detail::ll_flag(k);
    LLLine* mine = ws + (k & 1) * static_cast<std::size_t>(regions) * lines;
    auto region = [&](int x) { return mine + static_cast<std::size_t>(x) * lines; };
    // Slices of whole units; at least one unit each, so every pair exchanges in every chunk.
    std::size_t units = ((cnt + L - 1) / L + E - 1) / E;
    if (units == 0) units = 1;
    const std::size_t slice = units * E;
    auto valid = [&](int j, std::size_t u) -> int {  // elements of slice j's unit u
      const std::size_t e0 = static_cast<std::size_t>(j) * slice + u * E;
      return e0 >= cnt ? 0
                       : static_cast<int>(cnt - e0 < static_cast<std::size_t>(E) ? cnt - e0 : E);
    };
    auto at = [&](int j, std::size_t u) {
      return first + static_cast<std::size_t>(j) * slice + u * E;
    };
    // Sends this thread's units of `pick(u)` into region x of PE `pe`, then tells a parked CPU.
    // Across hosts the same lines go through the transport; a GPU builds them first in this PE's
    // own region kRsIn + l, which no member writes in this call (member j's slice l arrives in
    // region kRsIn + j).
    auto send = [&](int pe, int x, auto&& pick) {
      if (device::detail::is_remote(ctx, pe))
        return detail::ll_put_remote(g, ctx, kOp, region(x), region(kRsIn + l), units, pick, flag,
                                     pe);
      LLLine* dst = ctx.peer(region(x), pe);
      for (std::size_t u = tr; u < units; u += gs) detail::ll_store(dst + u, pick(u), flag);
      device::detail::notify(ctx, pe, region(x), units * sizeof(LLLine));
    };
    // One thread on the host waits for a whole region once (ll_wait_lines) and then reads
    // payloads unchecked; GPU threads check each of their lines as it arrives.
    constexpr bool kWholeRegion =
        !SYMMETRA_DEVICE_PASS && std::is_same_v<Group, device::ThreadGroup>;
    auto arrive = [&](int x, int from) {
      if constexpr (kWholeRegion) detail::ll_wait_lines(ctx, kOp, region(x), units, flag, from);
    };
    auto recv = [&](int x, std::size_t u, int from) {
      if constexpr (kWholeRegion) return detail::ll_payload(region(x) + u);
      return detail::ll_wait(ctx, kOp, region(x) + u, flag, from);
    };
    // Slice j's units whose E elements all lie in the chunk: all but at most the last few.
    auto whole = [&](int j) -> std::size_t {
      const std::size_t base = static_cast<std::size_t>(j) * slice;
      return cnt <= base ? 0 : (cnt - base) / E < units ? (cnt - base) / E : units;
    };
    // Unit u of slice j of `base` (source or dest): whole units by one 8-byte load, from values
    // the closure holds (not reloaded per unit through references), the rest element-wise.
    // (A GPU thread keeps the plain element-wise load.)
    auto slice_of = [&](const T* base, int j) {
      const T* p = base + at(j, 0);
      const std::size_t n = kWholeRegion ? whole(j) : 0;
      return [p, n, j, &valid](std::size_t u) {
        if constexpr (!SYMMETRA_DEVICE_PASS && std::is_same_v<Group, device::ThreadGroup>) {
          if (u < n) {  // (kWholeRegion, which a lambda cannot name uncaptured under nvcc)
            std::uint64_t v;
            std::memcpy(&v, p + u * E, 8);
            return v;
          }
        }
        return detail::load_unit(p + u * E, valid(j, u));
      };
    };
    const auto own = slice_of(dest, l);

    // 1. Reduce-scatter inside the host; the partial result of slice l accumulates in dest.
    for (int j = 0; j < L; ++j)
      if (j != l) send(world(h, j), kRsIn + l, slice_of(source, j));
    for (int j = 0; j < L; ++j)
      if (j != l) arrive(kRsIn + j, world(h, j));
    std::size_t first_u = tr;
    if constexpr (kWholeRegion) {
      if (L == 1) {  // slice 0 is the chunk: a copy
        first_u = whole(l);
        if (dest != source) std::memcpy(dest + at(l, 0), source + at(l, 0), first_u * 8);
      }
    }
    for (std::size_t u = first_u; u < units; u += gs) {
      detail::UnitAccum<T> acc{};  // in the accumulator type: one rounding for the whole host
      for (int j = 0; j < L; ++j) {
        const std::uint64_t x = j == l ? detail::load_unit(source + at(l, u), valid(l, u))
                                       : recv(kRsIn + j, u, world(h, j));
        if (j == 0)
          acc.set(x);
        else
          acc.add(op, x);
      }
      detail::store_unit(dest + at(l, u), acc.get(), valid(l, u));
    }
    // 2. Recursive doubling across hosts on slice l.
    if (H > 1) {
      if (is_extra) {
        send(world(h - H2, l), kExtraIn, own);
        arrive(kExtraOut, world(h - H2, l));
        for (std::size_t u = tr; u < units; u += gs)
          detail::store_unit(dest + at(l, u), recv(kExtraOut, u, world(h - H2, l)), valid(l, u));
      } else {
        if (has_extra) arrive(kExtraIn, world(h + H2, l));
        if (has_extra)
          for (std::size_t u = tr; u < units; u += gs)
            detail::store_unit(
                dest + at(l, u),
                detail::combine_unit<T>(op, own(u), recv(kExtraIn, u, world(h + H2, l))),
                valid(l, u));
        for (int j = 0; j < R; ++j) {
          const int partner = world(h ^ (1 << j), l);
          send(partner, kRd + j, own);
          arrive(kRd + j, partner);
          std::size_t u = tr;
          if constexpr (kWholeRegion) {
            u = whole(l);
            detail::combine_lines(op, dest + at(l, 0), region(kRd + j), u);
          }
          for (; u < units; u += gs)
            detail::store_unit(dest + at(l, u),
                               detail::combine_unit<T>(op, own(u), recv(kRd + j, u, partner)),
                               valid(l, u));
        }
        if (has_extra) send(world(h + H2, l), kExtraOut, own);
      }
    }
    // 3. All-gather inside the host.
    for (int j = 0; j < L; ++j)
      if (j != l) send(world(h, j), kAgIn + l, own);
    for (int j = 0; j < L; ++j) {
      if (j == l) continue;
      arrive(kAgIn + j, world(h, j));
      std::size_t u = tr;
      if constexpr (kWholeRegion) {
        u = whole(j);
        detail::copy_lines(dest + at(j, 0), region(kAgIn + j), u);
      }
      for (; u < units; u += gs)
        detail::store_unit(dest + at(j, u), recv(kAgIn + j, u, world(h, j)), valid(j, u));
    }
    g.sync();
  }
  g.sync();
}

}  // namespace symmetra::coll
