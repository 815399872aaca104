// Implementation of device/sync.hpp. Read that header for the contract.
#pragma once

#include "symmetra/core/atomic.hpp"
#include "symmetra/device/impl/check.hpp"
#include "symmetra/device/impl/heap_header.hpp"
#include "symmetra/device/impl/remote.hpp"
#include "symmetra/device/impl/wait_core.hpp"

namespace symmetra::device {

// Both paths at once: load/store to reachable PEs (the fence), the transport to the others.
SYMMETRA_INLINE void fence(const Context& ctx) {
  detail::fence_seq_cst();
#if SYMMETRA_DEVICE_PASS && SYMMETRA_DEVICE_REMOTE
  if (ctx.proxy.slots != nullptr)
    (void)detail::proxy_call(ctx, "fence", detail::proxy_fence(), false, -1);
#elif SYMMETRA_DEVICE_PASS
  (void)ctx;
#else
  if (ctx.remote != nullptr) ctx.remote->fence(ctx);
#endif
}
SYMMETRA_INLINE void quiet(const Context& ctx) {
  detail::fence_seq_cst();
#if SYMMETRA_DEVICE_PASS && SYMMETRA_DEVICE_REMOTE
  // Every earlier request of this PE's ring complete at its target: a round trip to the proxy,
  // only where the job has PEs on other hosts.
  if (ctx.proxy.slots != nullptr)
    (void)detail::proxy_call(ctx, "quiet", detail::proxy_quiet(), true, -1);
#elif SYMMETRA_DEVICE_PASS
  (void)ctx;
#else
  if (detail::nbi_targets.n != 0)
    detail::host_wake_nbi_targets(ctx, detail::nbi_targets);  // after the fence
  if (ctx.remote != nullptr) ctx.remote->quiet(ctx);
#endif
}

SYMMETRA_INLINE void flush(const Context& ctx) {
#if SYMMETRA_DEVICE_PASS && SYMMETRA_DEVICE_REMOTE
  // The proxy reads a request's source when it serves it: its quiet is the completion it has.
  if (ctx.proxy.slots != nullptr)
    (void)detail::proxy_call(ctx, "flush", detail::proxy_quiet(), true, -1);
#elif SYMMETRA_DEVICE_PASS
  (void)ctx;  // loads and stores: a kernel's operations leave its buffers when issued
#else
  if (ctx.remote != nullptr) ctx.remote->flush_local(ctx);
#endif
}

namespace detail {

#if !SYMMETRA_DEVICE_PASS
// For a sync's timeout message: the members that have not started sync `seq` of the team (each
// member's count of syncs begun on the slot, in its header), "PE 1 (at sync 38), PE 3 (at
// 38)"; members on other hosts, whose counts are not mapped here, as "PE 5 (another host)".
inline void describe_late(const Context& ctx, const TeamDesc& t, std::uint64_t seq, char* buf,
                          unsigned n) {
  int len = std::snprintf(buf, n, "the team's members at its sync %llu; not yet arrived:",
                          static_cast<unsigned long long>(seq));
  int listed = 0, late = 0;
  for (int r = 0; r < t.size && len >= 0 && static_cast<unsigned>(len) < n; ++r) {
    const int pe = team_pe(t, r);
    if (pe == ctx.my_pe) continue;
    std::uint64_t theirs = 0;
    const bool remote = is_remote(ctx, pe);
    if (!remote) theirs = atomic_load(&peer_header(ctx, pe)->team_seq[t.slot], kRelaxed);
    if (!remote && theirs >= seq) continue;
    ++late;
    if (listed >= 8) continue;
    ++listed;
    len += remote
               ? std::snprintf(buf + len, n - len, "%s PE %d (another host)", listed > 1 ? "," : "",
                               pe)
               : std::snprintf(buf + len, n - len, "%s PE %d (at sync %llu)", listed > 1 ? "," : "",
                               pe, static_cast<unsigned long long>(theirs));
  }
  if (late > listed && len >= 0 && static_cast<unsigned>(len) < n)
    std::snprintf(buf + len, n - len, " and %d more", late - listed);
}

// The host's wait of a sync round: until `word` (this PE's) reaches `seq`; a timeout names the
// members not yet arrived.
inline void wait_arrival(const Context& ctx, const TeamDesc& t, const std::uint64_t* word,
                         std::uint64_t seq) {
  wait_for(
      ctx, "sync", word, word + 1, [&] { return poll_load(word) >= seq; },
      [&](char* buf, unsigned n) { describe_late(ctx, t, seq, buf, n); });
}
#endif

// Dissemination: in round r, member i announces its sync count to member i + 2^r and waits for
// member i - 2^r's announcement. Counts only grow, and every member of a team makes the same
// number of calls, so "announcement >= my count" is the test and nothing is ever reset. A
// partner that is already one sync ahead has passed this one, which is what the test accepts.
SYMMETRA_INLINE void team_sync_thread(const Context& ctx, int team) {
  if (checks_on(ctx)) {
    if (team < 0 || team >= kMaxTeams || ctx.teams[team].size == 0 || ctx.teams[team].my_rank < 0)
      SYMMETRA_FATAL(ctx, "sync", "team handle %d is not a team this PE belongs to", team);
    check_team_local(ctx, "sync", ctx.teams[team]);
  }
  const TeamDesc t = ctx.teams[team];
  HeapHeader* me = my_header(ctx);
  const std::uint64_t seq = me->team_seq[t.slot] + 1;
  // Atomic: a timeout's message reads the members' counts (describe_late).
  atomic_store(&me->team_seq[t.slot], seq, kRelaxed);
#if !SYMMETRA_DEVICE_PASS
  if ((ctx.flags & Context::kCentralSync) && t.size > 1 && t.local == t.size) {
    // Central counter: arrive at the first member's counter; the last to arrive releases every
    // member through its own round-0 word. One wait per PE, on a word in its own memory.
    HeapHeader* root = peer_header(ctx, team_pe(t, 0));
    const std::uint64_t target = me->team_base[t.slot] + seq * static_cast<std::uint64_t>(t.size);
    const std::uint64_t before =
        symmetra::detail::AtomicRef<std::uint64_t>(root->team_count[t.slot])
            .fetch_add(1, symmetra::detail::kAcqRel);
    if (before + 1 == target) {
      for (int r = 0; r < t.size; ++r) {
        const int pe = team_pe(t, r);
        HeapHeader* h = peer_header(ctx, pe);
        atomic_store(&h->team_sync[t.slot][0], seq, kRelease);
        notify(ctx, pe, &me->team_sync[t.slot][0], sizeof(seq));
      }
    }
    wait_arrival(ctx, t, &me->team_sync[t.slot][0], seq);
    return;
  }
#endif
  int round = 0;
  for (int dist = 1; dist < t.size; dist <<= 1, ++round) {
    const int to = team_pe(t, (t.my_rank + dist) % t.size);
    set_word(ctx, &me->team_sync[t.slot][round], seq, to);
#if SYMMETRA_DEVICE_PASS
    // On a timeout, say whether the partner started this sync at all (its own count).
    const int from = team_pe(t, (t.my_rank - dist + t.size) % t.size);
    const int slot = t.slot;
    wait_value(ctx, "sync", &me->team_sync[t.slot][round], Cmp::kGe, seq,
               [ctx, from, slot, round, seq] {
                 if (is_remote(ctx, from)) {  // its count is not mapped here
                   printf(
                       "[pe %d] sync: team slot %d round %d waits for PE %d (another host)'s "
                       "sync %llu\n",
                       ctx.my_pe, slot, round, from, static_cast<unsigned long long>(seq));
                   return;
                 }
                 const std::uint64_t theirs =
                     atomic_load(&peer_header(ctx, from)->team_seq[slot], kRelaxed);
                 printf(
                     "[pe %d] sync: team slot %d round %d waits for PE %d's sync %llu; PE %d has "
                     "started %llu syncs on the slot\n",
                     ctx.my_pe, slot, round, from, static_cast<unsigned long long>(seq), from,
                     static_cast<unsigned long long>(theirs));
               });
#else
    wait_arrival(ctx, t, &me->team_sync[t.slot][round], seq);
#endif
  }
}

}  // namespace detail

template <class Group>
SYMMETRA_INLINE void sync(Group g, const Context& ctx, int team) {
  g.sync();
  if (g.thread_rank() == 0) detail::team_sync_thread(ctx, team);
  g.sync();
}

template <class Group>
SYMMETRA_INLINE void barrier(Group g, const Context& ctx, int team) {
  g.sync();
  if (g.thread_rank() == 0) {
    quiet(ctx);
    detail::team_sync_thread(ctx, team);
  }
  g.sync();
}

}  // namespace symmetra::device
