// The team table: the descriptors of this PE's teams (Context::teams points at them) and the
// collective steps that make one, unmake one, and gather a word over one.
//
// A new team needs a slot (its synchronization words in every member's heap header) that is free
// on all members, and a starting sync count above anything left in those words by an earlier team
// of the slot. Both are agreed with allgather over the parent, through the heap scratch row of
// the parent's slot, so that splits of different parents never share words.
//
// Threads: the runtime's setup thread (one at a time). Collective steps: every member of the
// team (create: of the parent) calls them in the same order. Errors: symmetra::Error naming the
// PE.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "symmetra/device/context.hpp"

namespace symmetra::detail {

class TeamTable {
 public:
  // What the collective steps use of the runtime, set once the context exists (the runtime's
  // join, context phase).
  struct Links {
    device::Context* ctx = nullptr;             // the host context: its header, its sync words
    Backend* gpu = nullptr;                     // the GPU backend, whose header has counters too
    const std::vector<int>* host_of = nullptr;  // world PE -> host
    std::function<void()> quiet;                // completes this PE's puts (Runtime::quiet)
    std::function<void()> refresh;              // the table changed: the context's copies follow
  };
  void link(Links links) { links_ = std::move(links); }

  device::TeamDesc& operator[](int h) { return desc_[static_cast<std::size_t>(h)]; }
  const device::TeamDesc& operator[](int h) const { return desc_[static_cast<std::size_t>(h)]; }
  device::TeamDesc* data() { return desc_.data(); }
  // Whether `h` names a team this PE belongs to.
  bool member(int h) const {
    return h >= 0 && h < device::kMaxTeams && desc_[h].size != 0 && desc_[h].my_rank >= 0;
  }
  // Members per host if the team's members form equal runs on distinct hosts, else 0.
  int local_run(int start, int stride, int size) const;

  // Collective over `team`: every member contributes `value`; returns all, in team order.
  std::vector<std::uint64_t> allgather(int team, std::uint64_t value);
  // Collective over `team`: empty if every member passed the same `word`, else every member's
  // word (team order), alike on every member. On the CPU backend one LL all-reduce of two words
  // (log2(n) exchanges, no sync, no store to every member); on the GPU backend, whose host
  // context has no workspace, allgather. For argument checks that must scale.
  std::vector<std::uint64_t> compare(int team, std::uint64_t word);
  // Collective over `parent`: the team of parent ranks start, start + stride, ... (size of
  // them) in a slot free on every member; its handle, -1 on PEs outside it. `op` names the call
  // in errors. `on_slot(slot)` runs on members once the slot is theirs (the backend's hook).
  int create(int parent, int start, int stride, int size, const char* op,
             const std::function<void(int)>& on_slot);
  // Collective over the PEs that pass `id` (nvshmemx_team_init): the team of `size` PEs in the
  // order of their `index`, met on the team board (team_board.hpp). The members' world PEs in
  // index order must be strided (start, start + stride, ..., stride >= 1): a TeamDesc. Its
  // handle; an error naming the members on every member where they are not.
  int create_by_id(std::uint64_t id, int size, int index, const char* op,
                   const std::function<void(int)>& on_slot);
  // Collective over the team's members: a barrier, then the slot is free.
  void destroy(int h);

 private:
  struct SlotCounters {
    std::uint64_t host[2];     // [team_seq, coll_seq] in the host header
    std::uint64_t gpu[2];      // the same in the GPU header (GPU backend)
    std::uint64_t root_count;  // the first member's central-sync arrivals (host header)
    std::uint64_t channels;    // above every channel's sync count, host and GPU headers
  };
  // Who takes part in a creation: the parent's PEs (a split) or the members themselves (an id).
  // gather(word) is collective over them and returns every one's word; is_member(i) says
  // whether participant i joins the new team.
  struct Participants {
    std::function<std::vector<std::uint64_t>(std::uint64_t)> gather;
    std::function<bool(int)> is_member;
    int n;
  };
  // Collective over the participants: a slot free on every member, its counters agreed; the
  // members install the team (world PEs first, first + step, ...) there. Its handle, -1 on
  // participants outside it.
  int install(const Participants& p, bool member, int first, int step, int size, int my_rank,
              const char* op, const std::function<void(int)>& on_slot);
  SlotCounters agree_slot_counters(const Participants& p, int slot);
  void set_slot_counters(int slot, const SlotCounters& counters, int team_size);
  void barrier(int team);
  [[noreturn]] void fail(const std::string& what) const;

  std::array<device::TeamDesc, device::kMaxTeams> desc_{};
  Links links_;
};

}  // namespace symmetra::detail
