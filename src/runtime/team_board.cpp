// The team board (team_board.hpp).
#include "runtime/team_board.hpp"

#include <chrono>
#include <cstdio>
#include <thread>

#include "core/clock.hpp"
#include "symmetra/device/amo.hpp"
#include "symmetra/device/impl/heap_header.hpp"
#include "symmetra/device/rma.hpp"
#include "symmetra/device/sync.hpp"
#include "symmetra/error.hpp"

namespace symmetra::detail {

namespace hd = device::detail;

namespace {
// Record layout (heap_header.hpp, board_record_words): id, members done, arrivals per round,
// then the rows.
constexpr std::uint64_t kId = 0, kDone = 1, kArrivals = 2, kRows = 2 + hd::kBoardRounds;

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(v));
  return buf;
}

// Polls with a growing sleep: a board wait lasts as long as the slowest member takes to call,
// and a remote poll is a message.
void backoff(int step) {
  if (step > 16) std::this_thread::sleep_for(std::chrono::microseconds(step > 256 ? 1000 : 50));
}
}  // namespace

TeamBoard::TeamBoard(const device::Context& ctx, std::function<void()> quiet, std::uint64_t id,
                     int size, int index, const char* op)
    : ctx_(ctx),
      quiet_(std::move(quiet)),
      id_(id),
      size_(size),
      index_(index),
      home_(static_cast<int>(((id * 0x9e3779b97f4a7c15ull) >> 32) %
                             static_cast<std::uint64_t>(ctx.n_pes))),
      op_(op) {
  if (size < 1 || size > ctx.n_pes || index < 0 || index >= size)
    fail("npes must be in [1, " + std::to_string(ctx.n_pes) + "] and pe_idx_in_team in [0, npes)");
  if (id == 0 || id == ~std::uint64_t{0}) fail("not an id from nvshmemx_team_get_uniqueid");
  hd::HeapHeader* h = hd::my_header(ctx_);
  const std::uint64_t start = steady_ns();
  for (int step = 0;; ++step) {
    // Records in an order that depends on the id, so that two creations meeting at one home
    // PE usually start at different records.
    for (int k = 0; k < hd::kBoardRecords; ++k) {
      const int r =
          static_cast<int>((id_ >> 7) + static_cast<std::uint64_t>(k)) % hd::kBoardRecords;
      std::uint64_t* rec = hd::board_record(h, r, ctx_.n_pes);
      const std::uint64_t held =
          device::atomic_compare_swap<std::uint64_t>(ctx_, rec + kId, 0, id_, home_);
      if (held == 0 || held == id_) {
        record_ = rec;
        return;
      }
    }
    if (steady_ns() - start > ctx_.timeout_ns)
      fail("every team-creation record on PE " + std::to_string(home_) +
           " (where this id meets) stayed in use by other creations; timed out "
           "(SYMMETRA_TIMEOUT_S sets the bound)");
    backoff(step);
  }
}

TeamBoard::~TeamBoard() {
  if (record_ == nullptr) return;
  quiet_();  // this member's reads are done before it counts itself out
  const auto done = device::atomic_fetch_add<std::uint64_t>(ctx_, word(kDone), 1, home_);
  if (done + 1 != static_cast<std::uint64_t>(size_)) return;
  // The last: everyone has read every row. Round 0's row is compare-swapped into, so it must be
  // zero for the next creation; the other rows are read only after their arrivals count.
  const std::vector<std::uint64_t> zeros(static_cast<std::size_t>(size_), 0);
  device::put(device::ThreadGroup{}, ctx_, word(kRows), zeros.data(), zeros.size(), home_);
  for (int r = 0; r < hd::kBoardRounds; ++r)
    device::p<std::uint64_t>(ctx_, word(kArrivals + static_cast<std::uint64_t>(r)), 0, home_);
  device::p<std::uint64_t>(ctx_, word(kDone), 0, home_);
  quiet_();
  device::atomic_set<std::uint64_t>(ctx_, word(kId), 0, home_);  // free, last
  quiet_();
}

void TeamBoard::fail(const std::string& what) const {
  throw_on_pe(ctx_.my_pe, std::string(op_) + ": team id " + hex(id_) + ", " +
                              std::to_string(size_) + " PEs, this PE's index " +
                              std::to_string(index_) + ": " + what);
}

void TeamBoard::await_round(int round) const {
  std::uint64_t* arrivals = word(kArrivals + static_cast<std::uint64_t>(round));
  const std::uint64_t start = steady_ns();
  for (int step = 0;; ++step) {
    const std::uint64_t n = device::atomic_fetch<std::uint64_t>(ctx_, arrivals, home_);
    if (n == static_cast<std::uint64_t>(size_)) return;
    if (n > static_cast<std::uint64_t>(size_))
      fail(std::to_string(n) + " PEs joined with this id: more than the team's size (every " +
           "member must pass the same npes)");
    if (steady_ns() - start > ctx_.timeout_ns)
      fail("only " + std::to_string(n) + " of the team's PEs called with this id (at PE " +
           std::to_string(home_) + ", round " + std::to_string(round) +
           "); timed out (SYMMETRA_TIMEOUT_S sets the bound)");
    backoff(step);
  }
}

std::vector<std::uint64_t> TeamBoard::gather(std::uint64_t value) {
  if (round_ >= hd::kBoardRounds)
    fail("the board has " + std::to_string(hd::kBoardRounds) + " rounds");  // internal
  const int round = round_++;
  std::uint64_t* row = word(kRows + static_cast<std::uint64_t>(round) * ctx_.n_pes);
  std::uint64_t* mine = row + index_;
  bool taken = false;
  if (round == 0)  // nonzero words; a word already there means another PE has this index
    taken = device::atomic_compare_swap<std::uint64_t>(ctx_, mine, 0, value, home_) != 0;
  else
    device::p<std::uint64_t>(ctx_, mine, value, home_);
  quiet_();  // the word is there before the arrival that says so
  device::atomic_add<std::uint64_t>(ctx_, word(kArrivals + static_cast<std::uint64_t>(round)), 1,
                                    home_);
  await_round(round);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(size_));
  device::get(device::ThreadGroup{}, ctx_, all.data(), row, all.size(), home_);  // complete
  if (taken)
    fail("another PE passed the same pe_idx_in_team (" + std::to_string(index_) +
         "); each member's index must be distinct");
  return all;
}

}  // namespace symmetra::detail
