// Device API: ordering and team synchronization (OpenSHMEM 1.5 §9.9, §9.11).
#pragma once

#include "symmetra/device/context.hpp"
#include "symmetra/device/group.hpp"

namespace symmetra::device {

// Orders this thread's earlier puts, p and non-fetching atomics to each PE before its later
// ones to the same PE. Threads: the calling thread.
SYMMETRA_INLINE void fence(const Context& ctx);

// Completes every earlier put, p, nbi operation and non-fetching atomic of this thread: visible
// at their targets on return. Threads: the calling thread.
SYMMETRA_INLINE void quiet(const Context& ctx);

// Local completion: this thread's earlier nbi operations no longer need its buffers (a put's
// source may be reused, a get's destination holds its data), without waiting for visibility at
// the targets (quiet's). Cheaper than quiet across hosts: over UCX it completes only the gets in
// flight (puts leave their source when sent). Threads: the calling thread.
SYMMETRA_INLINE void flush(const Context& ctx);

// Waits until every member of `team` called sync for the same time (dissemination algorithm;
// ceil(log2 n) rounds of one flag store and one wait). Does not complete earlier puts.
// Threads: every thread of `g`; one group per PE per call. Ordering: a member's accesses before
// its call happen before every member's accesses after the call (acquire/release on the flags).
template <class Group>
SYMMETRA_INLINE void sync(Group g, const Context& ctx, int team);

// quiet() then sync(): every earlier put of every member is visible everywhere on return.
// Threads: every thread of `g`. Ordering: as quiet then sync.
template <class Group>
SYMMETRA_INLINE void barrier(Group g, const Context& ctx, int team);

// The world-team forms.
template <class Group>
SYMMETRA_INLINE void sync_all(Group g, const Context& ctx) {
  sync(g, ctx, kTeamWorld);
}
template <class Group>
SYMMETRA_INLINE void barrier_all(Group g, const Context& ctx) {
  barrier(g, ctx, kTeamWorld);
}

}  // namespace symmetra::device

#include "symmetra/device/impl/sync_impl.hpp"
