// Credit-and-signal delivery for the direct collectives of one channel (broadcast, fcollect,
// alltoall, alltoalls): two one-way hops instead of a sync before and a barrier after, each of
// which costs log2(members) hops. permute_signal.hpp runs the same protocol
// with a signal per chunk.
//
// Call k of the team (this PE's coll_seq, which every member advances alike):
//  1. credit_grant: a receiver tells each of its senders "k" (the sender's ready word for it,
//     device/impl/heap_header.hpp): it has entered call k, so it is done with its dest;
//  2. credit_send / credit_put: a sender waits for each receiver's credit k and puts to it, then
//     fences once and adds 1 to each receiver's chunk_signal (data before signal);
//  3. credit_wait: a receiver waits until its chunk_signal has grown by its number of senders.
// Nothing is reset; the counters only grow. A sender cannot deliver call k+1's data before its
// receiver finished call k, since the receiver grants k+1 only then, so every delivery a
// receiver counts belongs to its current call.
//
// Without credits (Credits::kSkip: the program made every dest ready before any member called,
// OpenSHMEM's rule for broadcast and alltoall(s), which use it; Context::kDestReadyByProgram)
// steps 1 and 2's waits are left out: one hop. Senders then run ahead into later calls, and
// their signals go to a count of their own (uncredited_signal): on chunk_signal one could land
// in a call with credits that is still waiting for its chunks (a permute), which then returns
// early. Within that count a receiver may take a signal of a later call while one of call k is
// still on its way, and the count is still right: if it reached the total this PE expects
// through call k before all of call k's signals came, a signal of a later call came, and its
// sender had returned from call k. A member returns from one of these calls only once its data
// is complete everywhere (by induction: each signal it counted either belongs to the call,
// whose sender fenced all its data before its first signal, or comes from a member that
// returned from the call before it; broadcast's root and every member of alltoall send to every
// receiver), so call k's data is complete either way, and the late signal counts toward the
// next such call. Every receiver waits for all its signals, so a team leaves the count
// consumed, as it does chunk_signal.
//
// Threads: every thread of `g`. Ordering: a receiver's dest is complete when credit_wait returns
// (its own dest only: members return independently, with no barrier); a sender's source is
// reusable when credit_send returns.
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/coll/team_collective.hpp"
#include "symmetra/device/amo.hpp"
#include "symmetra/device/rma.hpp"
#include "symmetra/device/signal.hpp"

namespace symmetra::coll::detail {

// Whether a call exchanges credits: kSkip only where the program readies every dest itself.
enum class Credits { kExchange, kSkip };
SYMMETRA_INLINE Credits dest_credits(const device::Context& ctx) {
  return (ctx.flags & device::Context::kDestReadyByProgram) ? Credits::kSkip : Credits::kExchange;
}
// The deliveries to this PE (remote adds) and the running total it consumed, of such calls.
SYMMETRA_INLINE std::uint64_t* delivered(device::detail::HeapHeader* h, int slot, Credits c) {
  return c == Credits::kExchange ? &h->chunk_signal[slot] : &h->uncredited_signal[slot];
}
SYMMETRA_INLINE std::uint64_t* consumed(device::detail::HeapHeader* h, int slot, Credits c) {
  return c == Credits::kExchange ? &h->chunk_base[slot] : &h->uncredited_base[slot];
}

// Starts this PE's next call on team `t` and grants its credit to every team rank that
// `for_each_sender(f)` passes to f (kSkip: to none). Returns the call number k, to every thread.
template <class Group, class Senders>
SYMMETRA_INLINE std::uint64_t credit_grant(Group g, const device::Context& ctx, const TeamView& t,
                                           Senders for_each_sender,
                                           Credits credits = Credits::kExchange) {
  device::detail::HeapHeader* h = device::detail::my_header(ctx);
  const int slot = t.desc.slot;
  g.sync();
  const std::uint64_t k = h->coll_seq[slot] + 1;  // read by every thread before thread 0 moves on
  g.sync();
  if (g.thread_rank() == 0) {
    h->coll_seq[slot] =
        k;  // always: a later call with credits numbers its calls alike on every member
    std::uint64_t* ready = device::detail::ready_row(h, slot, ctx.n_pes);
    if (credits == Credits::kExchange)
      for_each_sender(
          [&](int sender) { device::atomic_set(ctx, &ready[t.rank()], k, t.world(sender)); });
  }
  g.sync();
  return k;
}

// Waits until team rank `to` granted call k: it is done with the buffers this PE will write.
template <class Group>
SYMMETRA_INLINE void credit_await(Group g, const device::Context& ctx, const TeamView& t,
                                  std::uint64_t k, int to, const char* op) {
  if (g.thread_rank() == 0)
    device::detail::wait_value(
        ctx, op,
        &device::detail::ready_row(device::detail::my_header(ctx), t.desc.slot, ctx.n_pes)[to],
        Cmp::kGe, k);
  g.sync();
}

// for_each_sender / for_each_receiver: every team rank but `me` of `m`, from me + 1 on.
struct AllBut {
  int me, m;
  template <class F>
  SYMMETRA_INLINE void operator()(F grant) const {
    for (int i = 1; i < m; ++i) grant((me + i) % m);
  }
};
SYMMETRA_INLINE AllBut all_but(int me, int m) {
  return {me, m};
}

// Sends this call's data to every team rank that `for_each_receiver(f)` passes to f (never this
// PE): to each once it granted call k, with `move(rank, world_pe)` (puts of any shape, every
// thread of g); then one fence, and a signal to each. One fence for all receivers: a signal's
// release fence costs about as much as a small put across GPUs.
template <class Group, class Receivers, class Move>
SYMMETRA_INLINE void credit_send(Group g, const device::Context& ctx, const TeamView& t,
                                 std::uint64_t k, const char* op, Receivers for_each_receiver,
                                 Move move, Credits credits = Credits::kExchange) {
  namespace dd = device::detail;
  dd::HeapHeader* h = dd::my_header(ctx);
  const int slot = t.desc.slot;
  for_each_receiver([&](int to) {
    if (credits == Credits::kExchange) credit_await(g, ctx, t, k, to, op);
    move(to, t.world(to));
  });
  // GPU: relaxed adds after the fence. CPU: release adds, which cost nothing more on x86 (a
  // locked add) and which ThreadSanitizer, blind to standalone fences, needs to see the order.
#if SYMMETRA_DEVICE_PASS
  constexpr auto kSignalOrder = symmetra::detail::kRelaxed;
#else
  constexpr auto kSignalOrder = symmetra::detail::kRelease;
#endif
  std::uint64_t* const signal = delivered(h, slot, credits);
  g.sync();
  if (g.thread_rank() == 0) {
    device::quiet(ctx);  // every thread's data (ordered before this by the group sync) first
    for_each_receiver([&](int to) { dd::add_word(ctx, signal, 1, t.world(to), kSignalOrder); });
  }
  g.sync();
}

// credit_send of n contiguous elements from source to dest on every receiver.
template <class Group, class Receivers, class T>
SYMMETRA_INLINE void credit_put(Group g, const device::Context& ctx, const TeamView& t,
                                std::uint64_t k, T* dest, const T* source, std::size_t n,
                                const char* op, Receivers for_each_receiver,
                                Credits credits = Credits::kExchange) {
  credit_send(
      g, ctx, t, k, op, for_each_receiver,
      [&](int, int pe) { device::put_nbi(g, ctx, dest, source, n, pe); }, credits);
}

// Waits for `senders` deliveries of this call.
template <class Group>
SYMMETRA_INLINE void credit_wait(Group g, const device::Context& ctx, const TeamView& t,
                                 std::uint64_t senders, const char* op,
                                 Credits credits = Credits::kExchange) {
  device::detail::HeapHeader* h = device::detail::my_header(ctx);
  const int slot = t.desc.slot;
  std::uint64_t* const total = consumed(h, slot, credits);
  g.sync();
  if (g.thread_rank() == 0) {
    const std::uint64_t base = *total;
    device::detail::wait_value(ctx, op, delivered(h, slot, credits), Cmp::kGe, base + senders);
    *total = base + senders;
  }
  g.sync();
}

}  // namespace symmetra::coll::detail
