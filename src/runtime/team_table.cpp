// The team table (team_table.hpp).
#include "runtime/team_table.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <string>

#include "core/log.hpp"
#include "runtime/team_board.hpp"
#include "symmetra/coll/allreduce.hpp"
#include "symmetra/device/impl/heap_header.hpp"
#include "symmetra/device/sync.hpp"
#include "symmetra/error.hpp"

namespace symmetra::detail {

namespace hd = device::detail;

void TeamTable::fail(const std::string& what) const {
  throw_on_pe(links_.ctx->my_pe, what);
}

void TeamTable::barrier(int team) {
  links_.quiet();
  device::sync(device::ThreadGroup{}, *links_.ctx, team);
}

std::vector<std::uint64_t> TeamTable::allgather(int team, std::uint64_t value) {
  const device::TeamDesc t = desc_[team];
  const device::Context& ctx = *links_.ctx;
  std::uint64_t* row = hd::scratch(hd::my_header(ctx), t.slot, ctx.n_pes);
  // The scratch row is in the host-memory header on either backend: store through the host
  // context.
  for (int k = 0; k < t.size; ++k) device::p(ctx, &row[t.my_rank], value, hd::team_pe(t, k));
  barrier(team);
  std::vector<std::uint64_t> all(row, row + t.size);
  barrier(team);  // nobody refills the row before everyone read it
  return all;
}

// The maximum of (word, ~word) is (max, ~min): the members agree when max == min. The all-gather
// only where they do not, to name the values: every member saw the same maximum, so all take it.
// (An all-gather of the checks puts n words from every PE: at 256 PEs on 4 hosts over UCX, one
// allocation's check took minutes.)
std::vector<std::uint64_t> TeamTable::compare(int team, std::uint64_t word) {
  if (links_.gpu) {
    auto all = allgather(team, word);
    for (std::uint64_t w : all)
      if (w != all[0]) return all;
    return {};
  }
  const std::uint64_t mine[2] = {word, ~word};
  std::uint64_t most[2] = {0, 0};
  coll::allreduce(device::ThreadGroup{}, *links_.ctx, team, most, mine, 2, coll::ReduceOp::kMax,
                  coll::AllreduceAlgo::kRecursiveDoubling);
  if (most[0] == ~most[1]) return {};
  return allgather(team, word);
}

int TeamTable::local_run(int start, int stride, int size) const {
  const std::vector<int>& host_of = *links_.host_of;
  int run = 1;
  while (run < size && host_of[start + run * stride] == host_of[start]) ++run;
  if (size % run != 0) return 0;
  for (int r = 0; r < size; ++r) {  // runs of `run` members, each on one host, hosts distinct
    const int host = host_of[start + (r - r % run) * stride];
    if (host_of[start + r * stride] != host) return 0;
    if (r % run == 0 && r > 0 && host == host_of[start + (r - run) * stride]) return 0;
  }
  return run;
}

namespace {
// The slot counters a new team must start above: sync counts and collective call counts.
std::size_t counter_offset(int which, int slot) {
  return (which == 0 ? offsetof(hd::HeapHeader, team_seq) : offsetof(hd::HeapHeader, coll_seq)) +
         sizeof(std::uint64_t) * static_cast<std::size_t>(slot);
}
// The word at byte `offset` of this PE's host header.
std::uint64_t* host_word(const device::Context& ctx, std::size_t offset) {
  return reinterpret_cast<std::uint64_t*>(reinterpret_cast<std::byte*>(hd::my_header(ctx)) +
                                          offset);
}
std::uint64_t& host_counter(const device::Context& ctx, int which, int slot) {
  return *host_word(ctx, counter_offset(which, slot));
}
// The channels' counts of a slot (coll/channel.hpp): sync counts and LL chunk counts, one row
// each; row_offset is where a slot's row starts in either header.
using ChannelRow = std::array<std::uint64_t, hd::kMaxChannels>;
constexpr std::size_t kChannelRows[] = {offsetof(hd::HeapHeader, chan_seq),
                                        offsetof(hd::HeapHeader, chan_coll)};
std::size_t row_offset(std::size_t rows, int slot) {
  return rows + sizeof(ChannelRow) * static_cast<std::size_t>(slot);
}
void* gpu_row(detail::Backend& gpu, std::size_t rows, int slot) {
  return gpu.device_context().heap_base + row_offset(rows, slot);
}
// The largest of `all` (one value per parent rank) over the new team's members.
std::uint64_t members_max(const std::vector<std::uint64_t>& all,
                          const std::function<bool(int)>& is_member) {
  std::uint64_t most = 0;
  for (int r = 0; r < static_cast<int>(all.size()); ++r)
    if (is_member(r)) most = std::max(most, all[r]);
  return most;
}
}  // namespace

// Counters of a slot start above anything an earlier team of the slot left in any member's
// header (host header, and GPU header on that backend): the largest value among the members.
TeamTable::SlotCounters TeamTable::agree_slot_counters(const Participants& p, int slot) {
  SlotCounters agreed{};
  const int n = p.n;
  const auto& is_member = p.is_member;
  for (int w = 0; w < 2; ++w) {
    const auto host_all = p.gather(host_counter(*links_.ctx, w, slot));
    const auto gpu_all =
        links_.gpu ? p.gather(links_.gpu->header_word(counter_offset(w, slot)).value_or_throw())
                   : std::vector<std::uint64_t>(n, 0);
    agreed.host[w] = members_max(host_all, is_member);
    agreed.gpu[w] = members_max(gpu_all, is_member);
  }
  // Channel counts: one floor above this PE's largest in either header, the largest over members.
  std::uint64_t chan = 0;
  for (std::size_t rows : kChannelRows) {
    const std::uint64_t* host = host_word(*links_.ctx, row_offset(rows, slot));
    chan = std::max(chan, *std::max_element(host, host + hd::kMaxChannels));
    if (links_.gpu) {
      ChannelRow row{};
      links_.gpu->copy(row.data(), gpu_row(*links_.gpu, rows, slot), sizeof(row)).or_throw();
      chan = std::max(chan, *std::max_element(row.begin(), row.end()));
    }
  }
  agreed.channels = members_max(p.gather(chan), is_member);
  // The new team's first member counts central-sync arrivals for the slot (sync_impl.hpp). The
  // slot is free on it, so nothing moves its count now.
  const auto counts = p.gather(hd::my_header(*links_.ctx)->team_count[slot]);
  agreed.root_count = 0;
  for (int r = 0; r < n; ++r)
    if (is_member(r)) {
      agreed.root_count = counts[r];
      break;
    }
  return agreed;
}

void TeamTable::set_slot_counters(int slot, const SlotCounters& c, int team_size) {
  for (int w = 0; w < 2; ++w) {
    host_counter(*links_.ctx, w, slot) = c.host[w];
    if (links_.gpu) links_.gpu->set_header_word(counter_offset(w, slot), c.gpu[w]).or_throw();
  }
  ChannelRow row;
  row.fill(c.channels);
  for (std::size_t rows : kChannelRows) {
    std::copy(row.begin(), row.end(), host_word(*links_.ctx, row_offset(rows, slot)));
    if (links_.gpu)
      links_.gpu->copy(gpu_row(*links_.gpu, rows, slot), row.data(), sizeof(row)).or_throw();
  }
  // Sync k of the team (team_seq k) completes when the count reaches base + k * size.
  hd::my_header(*links_.ctx)->team_base[slot] =
      c.root_count - c.host[0] * static_cast<std::uint64_t>(team_size);
}

int TeamTable::create(int parent, int start, int stride, int size, const char* op,
                      const std::function<void(int)>& on_slot) {
  const device::TeamDesc par = desc_[parent];
  // With checks on, the parent's members compare the split first (one all-gather), so that
  // arguments differing between PEs fail alike everywhere instead of making teams that disagree.
  if (links_.ctx->flags & device::Context::kCheckArgs) [[unlikely]] {
    const auto pack = [](int a, int b, int c) {
      const auto f = [](int v) {
        return static_cast<std::uint64_t>(static_cast<std::uint32_t>(v)) & 0x1fffff;
      };
      return f(a) | f(b) << 21 | f(c) << 42;
    };
    const auto all = allgather(parent, pack(start, stride, size));
    const auto text = [](std::uint64_t v) {
      return "start " + std::to_string(v & 0x1fffff) + ", stride " +
             std::to_string(v >> 21 & 0x1fffff) + ", size " + std::to_string(v >> 42 & 0x1fffff);
    };
    for (int r = 1; r < par.size; ++r)
      if (all[r] != all[0])
        fail(std::string(op) + ": the parent team's PEs passed different arguments: PE " +
             std::to_string(par.start) + " passed " + text(all[0]) + ", PE " +
             std::to_string(par.start + r * par.stride) + " passed " + text(all[r]) +
             " (a team split is collective; checked with SYMMETRA_CHECK=1)");
  }
  if (size < 1 || start < 0 || stride < 1 ||
      start + (size - 1) * static_cast<long>(stride) >= par.size)
    fail(std::string(op) + ": start " + std::to_string(start) + ", stride " +
         std::to_string(stride) + ", size " + std::to_string(size) +
         " do not fit a parent team of " + std::to_string(par.size) + " PEs");
  const int rel = par.my_rank - start;
  const bool member = rel >= 0 && rel % stride == 0 && rel / stride < size;
  const Participants p{[&](std::uint64_t w) { return allgather(parent, w); },
                       [&](int parent_rank) {
                         const int r = parent_rank - start;
                         return r >= 0 && r % stride == 0 && r / stride < size;
                       },
                       par.size};
  return install(p, member, par.start + start * par.stride, par.stride * stride, size,
                 member ? rel / stride : -1, op, on_slot);
}

int TeamTable::install(const Participants& p, bool member, int first, int step, int size,
                       int my_rank, const char* op, const std::function<void(int)>& on_slot) {
  std::uint64_t used = 0;
  for (int s = 0; s < device::kMaxTeams; ++s)
    if (desc_[s].size != 0) used |= std::uint64_t{1} << s;
  const auto all_used = p.gather(used);
  std::uint64_t busy = 0;
  for (int r = 0; r < p.n; ++r)
    if (p.is_member(r)) busy |= all_used[r];
  if (busy == ~std::uint64_t{0})
    fail(std::string(op) + ": all " + std::to_string(device::kMaxTeams) +
         " team slots are in use on some member; destroy teams that are no longer needed");
  const int slot = std::countr_one(busy);
  // Agreed by every participant, applied by the new team's members.
  const auto counters = agree_slot_counters(p, slot);
  if (!member) return -1;
  set_slot_counters(slot, counters, size);
  on_slot(slot);
  desc_[slot] = {first, step, size, my_rank, slot, local_run(first, step, size)};
  SYMMETRA_LOG(kDebug, links_.ctx->my_pe,
               "%s: team slot %d: PEs %d, %d, ... (%d of them), %d per host", op, slot, first,
               first + step, size, desc_[slot].local);
  links_.refresh();  // the GPU backend's device-side team table
  return slot;
}

int TeamTable::create_by_id(std::uint64_t id, int size, int index, const char* op,
                            const std::function<void(int)>& on_slot) {
  const device::Context& ctx = *links_.ctx;
  TeamBoard board(ctx, links_.quiet, id, size, index, op);
  // Round 0: who the members are, in index order (world PE + 1: 0 is an index nobody took).
  const auto pes = board.gather(static_cast<std::uint64_t>(ctx.my_pe) + 1);
  const auto members = [&] {
    std::string list;
    for (std::uint64_t w : pes) list += (list.empty() ? "" : ", ") + std::to_string(int(w) - 1);
    return list;
  };
  for (int i = 0; i < size; ++i)
    if (pes[i] == 0)
      board.fail("no PE took index " + std::to_string(i) + " (members by index: " + members() +
                 ")");
  // Symmetra's teams are strided (TeamDesc): the members in index order must be too.
  const int first = static_cast<int>(pes[0]) - 1;
  const int step = size > 1 ? static_cast<int>(pes[1] - pes[0]) : 1;
  for (int i = 1; i < size; ++i)
    if (step < 1 || static_cast<int>(pes[i]) - 1 != first + i * step)
      board.fail("the members' PEs in index order are " + members() +
                 ", not PEs start, start + stride, ... with a positive stride; Symmetra's teams "
                 "are strided (docs/nvshmem.md#teams-from-a-unique-id)");
  const Participants p{[&](std::uint64_t w) { return board.gather(w); }, [](int) { return true; },
                       size};
  return install(p, true, first, step, size, index, op, on_slot);
}

void TeamTable::destroy(int h) {
  barrier(h);  // nobody still syncs on the slot's words
  desc_[h] = device::TeamDesc{};
  links_.refresh();
}

}  // namespace symmetra::detail
