// Channels (coll/channel.hpp): the collectives that take them, called as the GPU kernels call
// them (channel c of C for every c) but one channel after the other on the PE's thread, on 1-8
// PEs as threads and processes, world and strided teams, with C from 2 to 32 and sizes below,
// at and above C (so that some channels get no elements). Every element is checked against an
// independent reference on fresh data (permute: ring shifts and one-way pairs). Also: a team
// slot reused by other members after channel calls (the channel counts a new team starts from),
// and the range split itself.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <vector>

#include "support/coll_reference.hpp"
#include "support/pe_runner.hpp"
#include "symmetra/coll.hpp"
#include "symmetra/introspect.hpp"

namespace symmetra::testing {
namespace {

using coll::AllreduceAlgo;
using coll::Channel;

TEST(ChannelRange, CoversEveryElementOnceInAlignedParts) {
  for (int count : {1, 2, 3, 7, 32})
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{31},
                          std::size_t{1000}, std::size_t{40001}})
      for (std::size_t align : {std::size_t{1}, std::size_t{4}, std::size_t{16}}) {
        std::size_t next = 0;
        for (int c = 0; c < count; ++c) {
          const Channel::Range r = Channel{c, count}.range(n, align);
          ASSERT_EQ(r.first, next) << "count " << count << " n " << n << " channel " << c;
          if (r.count > 0 && r.first + r.count < n) ASSERT_EQ(r.count % align, 0u);
          next = r.first + r.count;
        }
        ASSERT_EQ(next, n) << "count " << count << " n " << n << " align " << align;
      }
}

TEST(ChannelRange, ChannelsForTheDataMoved) {
  EXPECT_EQ(coll::channels_for(0, 32 << 10, 32), 1);
  EXPECT_EQ(coll::channels_for(1, 32 << 10, 32), 1);
  EXPECT_EQ(coll::channels_for(32 << 10, 32 << 10, 32), 1);
  EXPECT_EQ(coll::channels_for((32 << 10) + 1, 32 << 10, 32), 2);
  EXPECT_EQ(coll::channels_for(512 << 10, 32 << 10, 32), 16);
  EXPECT_EQ(coll::channels_for(64 << 20, 32 << 10, 32), 32);
  EXPECT_EQ(coll::channels_for(64 << 20, 32 << 10, 8), 8);
}

class ChannelTest : public ::testing::TestWithParam<PeConfig> {};

// Runs `call(ch)` for every channel of `count`, in channel order, as one collective call.
void each_channel(int count, const std::function<void(Channel)>& call) {
  for (int c = 0; c < count; ++c) call(Channel{c, count});
}

constexpr int kCounts[] = {2, 3, 7, 32};
constexpr std::size_t kSizes[] = {1, 5, 33, 1000, 4099};

void reductions(Runtime& rt, const Team& t, std::int32_t* src, std::int32_t* dst,
                std::uint64_t* call) {
  const int m = t.n_pes(), me = t.my_pe();
  const device::Context ctx = rt.device_context();
  const device::ThreadGroup g;
  for (int count : kCounts)
    for (std::size_t n : kSizes)
      for (int which = 0; which < 8;
           ++which) {  // one-shot, two-shot, ring, reduce_scatter, min, 3 LL
        ++*call;
        // One-shot, two-shot and ring load and store members' memory: not across hosts.
        if (which <= 2 && !coll::runs_on(AllreduceAlgo::kOneShot,
                                         symmetra::introspect::team_desc(rt, t.handle())))
          continue;
        const bool scatter = which == 3;
        const ReduceOp op = which == 4 ? ReduceOp::kMin : ReduceOp::kSum;
        const std::size_t total = scatter ? n * static_cast<std::size_t>(m) : n;
        for (std::size_t i = 0; i < total; ++i)
          src[i] = static_cast<std::int32_t>(mix(*call, me, i));
        for (std::size_t i = 0; i < n; ++i) dst[i] = 0x5EEDBEEF;
        rt.barrier(t);
        each_channel(count, [&](Channel ch) {
          switch (which) {
            case 0:
              coll::allreduce(g, ctx, t.handle(), dst, src, n, op, AllreduceAlgo::kOneShot, ch);
              break;
            case 1:
              coll::allreduce(g, ctx, t.handle(), dst, src, n, op, AllreduceAlgo::kTwoShot, ch);
              break;
            case 2:
              coll::allreduce(g, ctx, t.handle(), dst, src, n, op, AllreduceAlgo::kRing, ch);
              break;
            case 3:
              coll::reduce_scatter(g, ctx, t.handle(), dst, src, n, op, ch);
              break;
            case 4:
              coll::reduce(g, ctx, t.handle(), dst, src, n, op, ch);
              break;
            case 5:
              coll::allreduce(g, ctx, t.handle(), dst, src, n, op,
                              AllreduceAlgo::kRecursiveDoubling, ch);
              break;
            case 6:
              coll::allreduce(g, ctx, t.handle(), dst, src, n, op, AllreduceAlgo::kLLTwoShot, ch);
              break;
            default:
              // Every host shape: members per host from the call number.
              coll::allreduce_ll(
                  g, ctx, t.handle(), dst, src, n, op,
                  [&] {
                    int l = 1 + static_cast<int>(*call % static_cast<std::uint64_t>(m));
                    while (m % l != 0) --l;
                    return l;
                  }(),
                  ch);
              break;
          }
        });
        for (std::size_t i = 0; i < n; ++i) {
          const std::size_t at = scatter ? static_cast<std::size_t>(me) * n + i : i;
          std::uint32_t sum = 0;
          std::int32_t lo = static_cast<std::int32_t>(mix(*call, 0, at));
          for (int r = 0; r < m; ++r) {
            const auto v = static_cast<std::int32_t>(mix(*call, r, at));
            sum += static_cast<std::uint32_t>(v);
            lo = std::min(lo, v);
          }
          const std::int32_t want = op == ReduceOp::kMin ? lo : static_cast<std::int32_t>(sum);
          ASSERT_EQ(dst[i], want) << "kind " << which << " channels " << count << " n " << n
                                  << " i " << i;
        }
      }
}

void moves(Runtime& rt, const Team& t, std::uint32_t* src, std::uint32_t* dst,
           std::uint64_t* call) {
  const int m = t.n_pes(), me = t.my_pe();
  const std::size_t ms = static_cast<std::size_t>(m);
  const device::Context ctx = rt.device_context();
  const device::ThreadGroup g;
  for (int count : kCounts)
    for (std::size_t n : kSizes)
      for (int which = 0; which < 6;
           ++which) {  // broadcast, fcollect push, pull, alltoall, 2 permutes
        ++*call;
        const int root = static_cast<int>(*call % ms);
        // Permutes: a ring shift (4), and pairs (5): rank 2i sends to 2i+1 and nothing back.
        const int rank = t.my_pe();
        const int to =
            which == 4 ? (rank + 1) % m : (rank % 2 == 0 && rank + 1 < m ? rank + 1 : -1);
        const int from = which == 4 ? (rank + m - 1) % m : (rank % 2 == 1 ? rank - 1 : -1);
        // Element i of the block member r sends to member k.
        auto v = [&](int r, int k, std::size_t i) {
          return static_cast<std::uint32_t>(
              mix(*call, r, (which == 3 ? static_cast<std::size_t>(k) * n : 0) + i));
        };
        for (int k = 0; k < (which == 3 ? m : 1); ++k)
          for (std::size_t i = 0; i < n; ++i)
            src[static_cast<std::size_t>(k) * n + i] = v(me, k, i);
        for (std::size_t i = 0; i < n * ms + 1; ++i) dst[i] = 0xDEADBEEF;
        rt.barrier(t);
        each_channel(count, [&](Channel ch) {
          switch (which) {
            case 0:
              coll::broadcast(g, ctx, t.handle(), dst, src, n, root, ch);
              break;
            case 1:
              coll::fcollect(g, ctx, t.handle(), dst, src, n, ch);
              break;
            case 2:
              coll::fcollect_read(g, ctx, t.handle(), dst, src, n, ch);
              break;
            case 3:
              coll::alltoall(g, ctx, t.handle(), dst, src, n, ch);
              break;
            default:
              coll::permute(g, ctx, t.handle(), dst, src, n, to, from, 7, coll::NoChunkCallback{},
                            ch);
              break;
          }
        });
        const std::size_t blocks = which == 0 || which >= 4 ? 1 : ms;
        for (std::size_t b = 0; b < blocks; ++b)
          for (std::size_t i = 0; i < n; ++i) {
            const int sender = which == 0 ? root : which >= 4 ? from : static_cast<int>(b);
            const std::uint32_t want = sender < 0 ? 0xDEADBEEFu : v(sender, me, i);
            ASSERT_EQ(dst[b * n + i], want) << "kind " << which << " channels " << count << " n "
                                            << n << " block " << b << " i " << i;
          }
        ASSERT_EQ(dst[blocks * n], 0xDEADBEEFu) << "kind " << which << ": written past the end";
      }
}

void every_collective(Runtime& rt) {
  const std::size_t cap = 4099 * static_cast<std::size_t>(rt.n_pes()) + 1;
  auto* isrc = rt.allocate_array<std::int32_t>(cap);
  auto* idst = rt.allocate_array<std::int32_t>(cap);
  auto* usrc = rt.allocate_array<std::uint32_t>(cap);
  auto* udst = rt.allocate_array<std::uint32_t>(cap);
  std::uint64_t call = 0;
  for_each_team(rt, [&](const Team& t) {
    reductions(rt, t, isrc, idst, &call);
    moves(rt, t, usrc, udst, &call);
  });
}

TEST_P(ChannelTest, EveryCollectiveThatTakesChannels) {
  run_pes(GetParam(), every_collective);
}

// The GPU's workspace lanes (one per channel, each with its own LL chunk count), on the CPU.
TEST_P(ChannelTest, EveryCollectiveWithWorkspaceLanes) {
  setenv("SYMMETRA_LL_LANES", "1", 1);
  run_pes(GetParam(), every_collective);
  unsetenv("SYMMETRA_LL_LANES");
}

// A slot that served one team's channel calls, then serves a team of other members: the new
// team's channel syncs must start above every count left in the slot, or a member that never
// used the slot would wait for a count its partners passed long ago (or pass one too early).
// Two-shot (channel syncs) and recursive doubling in workspace lanes (LL chunk counts per lane).
TEST_P(ChannelTest, ReusedSlotStartsAboveOldChannelCounts) {
  setenv("SYMMETRA_LL_LANES", "1", 1);
  run_pes(GetParam(), [](Runtime& rt) {
    if (rt.n_pes() < 2) return;
    constexpr std::size_t kN = 1000;
    auto* src = rt.allocate_array<std::int32_t>(kN);
    auto* dst = rt.allocate_array<std::int32_t>(kN);
    const device::Context ctx = rt.device_context();
    const int n = rt.n_pes();
    for (int round = 0; round < 3; ++round) {
      // Round 0: the odd PEs; round 1: the lower half (PE 0 and 1 with 4 PEs); round 2: all
      // but PE 0.
      const int start = round == 0 ? 1 : round == 1 ? 0 : 1;
      const int stride = round == 0 ? 2 : 1;
      const int size = round == 0 ? n / 2 : round == 1 ? std::max(1, n / 2) : n - 1;
      Team t = rt.split_strided(rt.team_world(), start, stride, size);
      if (t.valid()) {
        const device::TeamDesc t_desc = symmetra::introspect::team_desc(rt, t.handle());
        for (std::uint64_t call = 0; call < 5 + static_cast<std::uint64_t>(round) * 3; ++call) {
          for (std::size_t i = 0; i < kN; ++i)
            src[i] = static_cast<std::int32_t>(mix(call + 100 * round, t.my_pe(), i));
          rt.barrier(t);
          each_channel(7, [&](Channel ch) {
            coll::allreduce(device::ThreadGroup{}, ctx, t.handle(), dst, src, kN, ReduceOp::kSum,
                            call % 2 || !coll::runs_on(AllreduceAlgo::kTwoShot, t_desc)
                                ? AllreduceAlgo::kRecursiveDoubling
                                : AllreduceAlgo::kTwoShot,
                            ch);
          });
          for (std::size_t i = 0; i < kN; ++i) {
            std::uint32_t sum = 0;
            for (int r = 0; r < t.n_pes(); ++r)
              sum += static_cast<std::uint32_t>(mix(call + 100 * round, r, i));
            ASSERT_EQ(static_cast<std::uint32_t>(dst[i]), sum)
                << "round " << round << " call " << call << " i " << i;
          }
        }
        rt.destroy(t);
      }
      rt.barrier_all();
    }
  });
  unsetenv("SYMMETRA_LL_LANES");
}

INSTANTIATE_TEST_SUITE_P(Pes, ChannelTest, ::testing::ValuesIn(collective_configs()),
                         PeConfigName());

}  // namespace
}  // namespace symmetra::testing
