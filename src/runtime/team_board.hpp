// The team board: how the PEs of a team made from a unique id (nvshmemx_team_init) find each
// other and gather words before any team holds them all. No parent team exists to run a
// collective on, so the members meet at a record in the heap header of the PE the id hashes to
// (the home PE, member or not: the record is one-sided memory), claimed with a compare-swap of
// the id. Each round, member i writes its word at row[i], counts itself in, and reads the row
// once all `size` have arrived. The last member to leave clears the record and frees it.
//
// Threads: the runtime's setup thread. Collective over the id's members, who make the same
// rounds. Errors: symmetra::Error naming the PE, the id and what arrived.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "symmetra/device/context.hpp"

namespace symmetra::detail {

class TeamBoard {
 public:
  // Checks the arguments (size in [1, n_pes], index in [0, size), an id neither 0 nor ~0), then
  // claims (or finds) the id's record at its home PE. `quiet` completes this PE's puts. `index`
  // is this member's place; `op` names the call in errors.
  TeamBoard(const device::Context& ctx, std::function<void()> quiet, std::uint64_t id, int size,
            int index, const char* op);
  TeamBoard(const TeamBoard&) = delete;
  TeamBoard& operator=(const TeamBoard&) = delete;
  // Counts this member out; the last one clears and frees the record.
  ~TeamBoard();

  // The next round: every member's word, in index order. Round 0 also checks that no other PE
  // took this member's index (its word there must be nonzero).
  std::vector<std::uint64_t> gather(std::uint64_t word);
  // Throws symmetra::Error: `what`, after the call, the id, the size and this PE's index.
  [[noreturn]] void fail(const std::string& what) const;

 private:
  std::uint64_t* word(std::uint64_t i) const { return record_ + i; }
  // Waits until the round's arrival count reaches size_; past it, or past the timeout, fails.
  void await_round(int round) const;

  const device::Context& ctx_;
  std::function<void()> quiet_;
  std::uint64_t id_;
  int size_, index_, home_;
  const char* op_;
  std::uint64_t* record_ = nullptr;  // this PE's address of the record (at home_ for RMA)
  int round_ = 0;
};

}  // namespace symmetra::detail
