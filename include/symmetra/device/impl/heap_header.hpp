// Layout of the internal header at the start of every PE's symmetric heap.
//
// Everything the protocols share lives in symmetric memory as plain integers (docs/design.md §1.1),
// so the same code synchronizes CPU threads, CPU processes and GPU kernels. The data heap holds, in
// order: this header, the collective workspace (device/context.hpp: ws_world_bytes, ws_team_bytes
// per team slot), then user allocations at Context::heap_base + reserved_bytes(ctx).
#pragma once

#include <cstddef>
#include <cstdint>

#include "symmetra/core/platform.hpp"
#include "symmetra/device/context.hpp"

namespace symmetra::device::detail {

inline constexpr int kSyncRounds = 32;  // dissemination rounds: enough for 2^32 PEs

// Why a job is stopping (HeapHeader::abort_why), for the message of every PE that stops.
enum class AbortWhy : std::uint32_t {
  kFailed = 0,    // the PE hit an error and printed it
  kLeft = 1,      // the PE's process ended without finalize (exit, a return from main)
  kGone = 2,      // the PE's connection to the job's rendezvous closed (killed, crashed, or left)
  kExit = 3,      // the PE called shmem_global_exit
  kHubGone = 4,   // the job's rendezvous (symrun, or the process of the PE that hosted it) is gone
  kTimedOut = 5,  // the PE's wait timed out (SYMMETRA_TIMEOUT_S) and it stopped the job
};
SYMMETRA_INLINE const char* abort_text(AbortWhy why) {
  switch (why) {
    case AbortWhy::kLeft:
      return "left the job without finalize";
    case AbortWhy::kGone:
      return "is gone (its process ended without finalize, or was killed)";
    case AbortWhy::kExit:
      return "ended the job (global exit)";
    case AbortWhy::kHubGone:
      return "is gone, and with it the job's rendezvous";
    case AbortWhy::kTimedOut:
      return "timed out waiting for another PE (see its message)";
    default:
      return "failed (see its message)";
  }
}
inline constexpr std::uint32_t kHeaderMagic = 0x53594d31;  // "SYM1"
// Channels (coll/channel.hpp): a collective split into independent parts, one per GPU block,
// each with its own sync and signal words so that parts never wait for each other. Their syncs
// have kChannelRounds dissemination rounds: teams of more than 2^16 PEs use one channel.
inline constexpr int kMaxChannels = 32;
inline constexpr int kChannelRounds = 16;

struct alignas(64) HeapHeader {
  // Line 0: waiting on CPUs. A waiter counts itself in `waiters`, then sleeps on `doorbell`
  // (a futex word); writers ring the doorbell only when someone waits.
  std::uint32_t doorbell;
  std::uint32_t waiters;
  std::int32_t abort_pe;  // 0: running; p + 1: PE p failed and the job is stopping
  std::uint32_t magic;
  // Heap offsets [watch_lo, watch_hi) that sleeping waiters wait on: a writer rings the doorbell
  // only when its store falls inside, so data traffic to a PE that waits on something else
  // costs no system call.
  std::uint64_t watch_lo;
  std::uint64_t watch_hi;
  // Held by a waiter while it joins or leaves (waiters, watch_lo, watch_hi), so that a leaving
  // last waiter never clears the range of one that is joining; writers never take it.
  std::uint32_t watch_lock;
  // Why abort_pe was set (AbortWhy), written before abort_pe with release.
  std::uint32_t abort_why;
  std::uint32_t pad0[6];
  // Per team slot: this PE's count of sync calls (written only by this PE).
  std::uint64_t team_seq[kMaxTeams];
  // Per team slot and dissemination round: the latest sync count a partner announced.
  std::uint64_t team_sync[kMaxTeams][kSyncRounds];
  // Collectives with their own protocol (coll/permute_signal.hpp, fcollect_ring.hpp,
  // allreduce_ring.hpp, allreduce_ll.hpp), per team slot. Every member makes the same calls, so
  // the counts agree across members.
  std::uint64_t coll_seq[kMaxTeams];      // this PE's count of such calls or chunks (local)
  std::uint64_t chunk_signal[kMaxTeams];  // chunks delivered to this PE, all calls (remote)
  std::uint64_t chunk_base[kMaxTeams];    // chunks this PE consumed before this call (local)
  // The same two counts for the credit collectives' calls without credits (coll/credit.hpp,
  // Context::kDestReadyByProgram): a sender runs ahead into such calls, and its signals must
  // never land in the count of a call that has credits (a permute still waiting for chunks).
  std::uint64_t uncredited_signal[kMaxTeams];
  std::uint64_t uncredited_base[kMaxTeams];
  // Central-counter syncs (sync_impl.hpp), per team slot: arrivals at this PE as the team's
  // first member (remote fetch-adds), and the arrival count before this team's sync 0, minus
  // team_seq times the team size, as agreed at team creation (local).
  std::uint64_t team_count[kMaxTeams];
  std::uint64_t team_base[kMaxTeams];
  // Per team slot and channel (coll/channel.hpp), used only by calls of more than one channel:
  // the channel's sync count (local), its dissemination words (remote), and its chunk signal
  // and consumed chunks (allreduce_ring.hpp), as team_seq, team_sync, chunk_signal, chunk_base.
  // The put ring, which runs as one channel, counts its host's chunks on channel 0's pair: every
  // call consumes all it receives before any member can start the next, so calls of one channel
  // and of several can share the words.
  // A new team of the slot starts every channel count (chan_seq, chan_coll) above the largest
  // any member holds.
  std::uint64_t chan_seq[kMaxTeams][kMaxChannels];
  std::uint64_t chan_sync[kMaxTeams][kMaxChannels][kChannelRounds];
  std::uint64_t chan_signal[kMaxTeams][kMaxChannels];
  std::uint64_t chan_base[kMaxTeams][kMaxChannels];
  // The LL chunk count of channels 1.. (allreduce_ll.hpp; channel 0 counts in coll_seq), local.
  std::uint64_t chan_coll[kMaxTeams][kMaxChannels];
  // Where the next wait_until_any / test_any scan starts: one past the index the last one
  // returned (wait_impl.hpp), so that no satisfied index starves the ones after it. Local;
  // threads of the PE share it (a lost update only moves a start, never breaks a scan).
  std::uint64_t any_next;
  // Followed by two arrays of kMaxTeams rows x n_pes words (one row per team slot, so that
  // teams of different parents never share words):
  //  - scratch: host-side setup collectives on a team (team creation, allocation checks);
  //  - ready: ready[slot][r] is the coll_seq that team member r reached as a receiver of this
  //    PE: a sender may write into r's buffers for call k once ready[slot][r] >= k. One word per
  //    receiver, because a single word could be raised by a later receiver of a later call
  //    while this call's receiver is still busy.
  // Then kBoardRecords records of the team board (board_record): where the PEs of a team made
  // from a unique id (nvshmemx_team_init) find each other, since no team holds them all yet.
};

// A board record, at the PE that the unique id hashes to (runtime/team_board.hpp): the id (0:
// free), the count of members done with it, one arrival count per round, then one row of n_pes
// words per round, where member i writes its word i.
inline constexpr int kBoardRecords = 2;
inline constexpr int kBoardRounds = 10;
SYMMETRA_INLINE constexpr std::uint64_t board_record_words(int n_pes) {
  return 2 + kBoardRounds + kBoardRounds * static_cast<std::uint64_t>(n_pes);
}

SYMMETRA_INLINE constexpr std::uint64_t header_bytes(int n_pes) {
  const std::uint64_t raw = sizeof(HeapHeader) +
                            2 * 8ull * kMaxTeams * static_cast<std::uint64_t>(n_pes) +
                            8ull * kBoardRecords * board_record_words(n_pes);
  return (raw + 4095) & ~std::uint64_t{4095};
}

SYMMETRA_INLINE HeapHeader* my_header(const Context& ctx) {
  return reinterpret_cast<HeapHeader*>(ctx.heap_base);
}

SYMMETRA_INLINE HeapHeader* peer_header(const Context& ctx, int pe) {
  return ctx.peer(my_header(ctx), pe);
}

// Row `slot` of the setup scratch: n_pes words.
SYMMETRA_INLINE std::uint64_t* scratch(HeapHeader* h, int slot, int n_pes) {
  return reinterpret_cast<std::uint64_t*>(h + 1) + static_cast<std::size_t>(slot) * n_pes;
}

// Header plus workspace: where user allocations start.
SYMMETRA_INLINE constexpr std::uint64_t reserved_bytes(int n_pes, std::uint64_t ws_world,
                                                       std::uint64_t ws_team) {
  return header_bytes(n_pes) + ws_world + ws_team * (kMaxTeams - 1);
}

// The collective workspace of team slot `slot` on this PE, and its size.
SYMMETRA_INLINE std::byte* workspace(const Context& ctx, int slot) {
  return ctx.heap_base + header_bytes(ctx.n_pes) +
         (slot == 0
              ? 0
              : ctx.ws_world_bytes + ctx.ws_team_bytes * static_cast<std::uint64_t>(slot - 1));
}
SYMMETRA_INLINE std::uint64_t workspace_bytes(const Context& ctx, int slot) {
  return slot == 0 ? ctx.ws_world_bytes : ctx.ws_team_bytes;
}

// The workspace of channel `channel` (coll/channel.hpp) of a slot: on the GPU, kMaxChannels
// fixed lanes, so that a lane only ever carries one channel's packets whatever the channel
// counts of successive calls (their protocol's credits are per lane); on the CPU, where calls
// run one channel, the whole workspace (Context::kWorkspaceLanes says which).
SYMMETRA_INLINE int workspace_lanes(const Context& ctx) {
  return (ctx.flags & Context::kWorkspaceLanes) ? kMaxChannels : 1;
}
SYMMETRA_INLINE std::uint64_t lane_bytes(const Context& ctx, int slot) {
  return workspace_bytes(ctx, slot) / static_cast<std::uint64_t>(workspace_lanes(ctx)) / 16 * 16;
}
SYMMETRA_INLINE std::byte* lane(const Context& ctx, int slot, int channel) {
  return workspace(ctx, slot) +
         lane_bytes(ctx, slot) * static_cast<std::uint64_t>(channel % workspace_lanes(ctx));
}
// The chunk count of that lane: coll_seq for lane 0 (and every channel on the CPU), chan_coll
// for the others. One count per lane keeps its packets' flags and parities in one sequence.
SYMMETRA_INLINE std::uint64_t* lane_seq(const Context& ctx, HeapHeader* h, int slot, int channel) {
  const int l = channel % workspace_lanes(ctx);
  return l == 0 ? &h->coll_seq[slot] : &h->chan_coll[slot][l];
}

// Row `slot` of the ready words: n_pes words.
SYMMETRA_INLINE std::uint64_t* ready_row(HeapHeader* h, int slot, int n_pes) {
  return scratch(h, kMaxTeams + slot, n_pes);
}

// Board record `record` (board_record_words(n_pes) words), after the ready rows.
SYMMETRA_INLINE std::uint64_t* board_record(HeapHeader* h, int record, int n_pes) {
  return scratch(h, 2 * kMaxTeams, n_pes) +
         board_record_words(n_pes) * static_cast<std::uint64_t>(record);
}

SYMMETRA_INLINE int team_pe(const TeamDesc& t, int rank) {
  return t.start + rank * t.stride;
}

}  // namespace symmetra::device::detail
