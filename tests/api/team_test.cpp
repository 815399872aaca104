// Teams: split_strided, split_2d, translate_pe, team sync/barrier, destroy and slot reuse.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "support/local_access.hpp"
#include "support/pe_runner.hpp"

namespace symmetra::testing {
namespace {

class TeamTest : public ::testing::TestWithParam<PeConfig> {};

TEST_P(TeamTest, WorldAndShared) {
  run_pes(GetParam(), [](Runtime& rt) {
    Team w = rt.team_world(), s = rt.team_shared();
    EXPECT_EQ(w.my_pe(), rt.my_pe());
    EXPECT_EQ(w.n_pes(), rt.n_pes());
    // team_shared: the PEs of this host, every PE unless forced hosts split them (SYMMETRA_HOSTS
    // places runs of PEs on each), which are reached through the transport instead.
    int local = 0;
    for (int pe = 0; pe < rt.n_pes(); ++pe) {
      EXPECT_EQ(w.translate_pe(pe, s), rt.pe_local(pe) ? local : -1) << "PE " << pe;
      local += rt.pe_local(pe);
    }
    EXPECT_EQ(s.n_pes(), local);
    EXPECT_TRUE(rt.pe_local(rt.my_pe()));
    rt.sync(w);
    rt.barrier(s);
  });
}

TEST_P(TeamTest, SplitStridedEvenPes) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    const int size = (n + 1) / 2;
    Team even = rt.split_strided(rt.team_world(), 0, 2, size);
    ASSERT_EQ(even.valid(), me % 2 == 0);
    auto* x = rt.allocate_array<std::int32_t>(size);
    fill(rt, x, static_cast<std::size_t>(size), -1);
    rt.barrier_all();
    if (even.valid()) {
      EXPECT_EQ(even.my_pe(), me / 2);
      EXPECT_EQ(even.n_pes(), size);
      EXPECT_EQ(even.translate_pe(even.my_pe(), rt.team_world()), me);
      // Team-relative PE numbers: put into every member's slot, then a team barrier.
      for (int k = 0; k < size; ++k) rt.p(&x[even.my_pe()], me * 10, even.world_pe(k));
      for (int round = 0; round < 50; ++round) rt.barrier(even);
      const auto got = ld(rt, x, static_cast<std::size_t>(size));
      for (int k = 0; k < size; ++k) EXPECT_EQ(got[k], 2 * k * 10);
      // Odd PEs are not in the team.
      if (n > 1) {
        EXPECT_EQ(rt.team_world().translate_pe(1, even), -1);
      }
    }
    rt.barrier_all();
    if (even.valid()) rt.destroy(even);
    rt.free(x);
  });
}

// Teams from a unique id (team_from_id, nvshmemx_team_init's model): only the members call it,
// meeting on the board at the id's home PE. The odd PEs, then every PE, then a team of each PE
// at once (more creations than a home's records); each team's numbering and a sum over it
// against the sum computed here. Members out of stride order fail on every member.
TEST_P(TeamTest, TeamsFromAUniqueId) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    // The same fresh ids on every PE of the run (run_seed), never 0 or ~0.
    const auto id = [](std::uint64_t k) {
      return (run_seed() * 0x9e3779b97f4a7c15ull + (k << 2)) >> 1 | 1;  // distinct for distinct k
    };
    auto* src = rt.allocate_array<std::int64_t>(1);
    auto* dst = rt.allocate_array<std::int64_t>(1);
    const auto check = [&](Team t, int first, int stride, int size, std::uint64_t round) {
      ASSERT_TRUE(t.valid());
      EXPECT_EQ(t.n_pes(), size);
      EXPECT_EQ(t.world_pe(t.my_pe()), me);
      for (int k = 0; k < size; ++k) EXPECT_EQ(t.world_pe(k), first + k * stride);
      std::mt19937_64 rng(run_seed() + round);
      std::vector<std::int64_t> in(static_cast<std::size_t>(n));
      for (auto& v : in) v = static_cast<std::int64_t>(rng() >> 20);
      rt.p(src, in[static_cast<std::size_t>(me)], me);
      rt.quiet();
      rt.allreduce(t, dst, src, 1, coll::ReduceOp::kSum);
      std::int64_t want = 0;
      for (int k = 0; k < size; ++k) want += in[static_cast<std::size_t>(first + k * stride)];
      EXPECT_EQ(rt.g(dst, me), want) << "round " << round;
      rt.destroy(t);
    };
    if (me % 2 == 1) check(rt.team_from_id(id(1), n / 2, me / 2), 1, 2, n / 2, 1);
    rt.barrier_all();
    check(rt.team_from_id(id(2), n, me), 0, 1, n, 2);
    check(rt.team_from_id(id(3 + static_cast<std::uint64_t>(me)), 1, 0), me, 1, 1, 3);
    rt.barrier_all();
    if (n >= 3 && me < 3) {  // PEs 0, 2, 1 by index: not strided
      try {
        rt.team_from_id(id(100), 3, me == 0 ? 0 : 3 - me);
        ADD_FAILURE() << "members 0, 2, 1 made a team";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("in index order are 0, 2, 1"), std::string::npos)
            << e.what();
      }
    }
    rt.barrier_all();
    rt.free(dst);
    rt.free(src);
  });
}

TEST_P(TeamTest, Split2dGrid) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    const int xrange = 2;
    Team xt, yt;
    rt.split_2d(rt.team_world(), xrange, &xt, &yt);
    ASSERT_TRUE(xt.valid());
    ASSERT_TRUE(yt.valid());
    EXPECT_EQ(xt.my_pe(), me % xrange);
    EXPECT_EQ(yt.my_pe(), me / xrange);
    const int row = me / xrange;
    EXPECT_EQ(xt.n_pes(), std::min(xrange, n - row * xrange));
    EXPECT_EQ(yt.n_pes(), (n - me % xrange + xrange - 1) / xrange);
    EXPECT_EQ(xt.world_pe(0), row * xrange);
    EXPECT_EQ(yt.world_pe(0), me % xrange);
    // Sum of world PE numbers over each team, by atomics into member 0 and a team barrier.
    auto* sums = rt.allocate_array<std::int64_t>(2);
    fill(rt, sums, 2, std::int64_t{0});
    rt.barrier_all();
    rt.atomic_add(&sums[0], std::int64_t(me), xt.world_pe(0));
    rt.atomic_add(&sums[1], std::int64_t(me), yt.world_pe(0));
    rt.barrier(xt);
    rt.barrier(yt);
    rt.barrier_all();
    if (xt.my_pe() == 0) {
      std::int64_t want = 0;
      for (int k = 0; k < xt.n_pes(); ++k) want += xt.world_pe(k);
      EXPECT_EQ(ld(rt, &sums[0]), want);
    }
    if (yt.my_pe() == 0) {
      std::int64_t want = 0;
      for (int k = 0; k < yt.n_pes(); ++k) want += yt.world_pe(k);
      EXPECT_EQ(ld(rt, &sums[1]), want);
    }
    rt.barrier_all();
    rt.destroy(xt);
    rt.destroy(yt);
    rt.free(sums);
  });
}

// Creating and destroying teams many times reuses slots; syncs keep working (counts carry over).
TEST_P(TeamTest, ManyTeamsReuseSlots) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int n = rt.n_pes();
    for (int round = 0; round < 100; ++round) {
      const int start = round % n;
      const int size = (n - start);
      Team t = rt.split_strided(rt.team_world(), start, 1, size);
      if (t.valid()) {
        for (int k = 0; k <= round % 3; ++k) rt.sync(t);
        rt.destroy(t);
      }
    }
    rt.barrier_all();
  });
}

// A barrier orders the puts before it, in both sync algorithms (SYMMETRA_SYNC; the central
// counter is the default where PEs outnumber CPUs): every member puts the round into its word on
// every other member, barriers, and finds every word at the round. Teams with different first
// members and sizes take turns in the slots, so the central counter's agreed base is exercised.
TEST_P(TeamTest, BarrierOrdersPutsInBothSyncAlgorithms) {
  for (const char* mode : {"dissemination", "central"}) {
    setenv("SYMMETRA_SYNC", mode, 1);
    run_pes(GetParam(), [mode](Runtime& rt) {
      const int n = rt.n_pes();
      auto* words = rt.allocate_array<std::uint64_t>(static_cast<std::size_t>(n));
      for (int round = 1; round <= 60; ++round) {
        const int start = round % 3 == 0 ? 0 : (round % n);
        Team t = round % 3 == 0 ? rt.team_world()
                                : rt.split_strided(rt.team_world(), start, 1, n - start);
        if (t.valid()) {
          const std::uint64_t v =
              static_cast<std::uint64_t>(round) * 1000 + static_cast<std::uint64_t>(rt.my_pe());
          for (int r = 0; r < t.n_pes(); ++r)
            rt.p(&words[rt.my_pe()], v, t.translate_pe(r, rt.team_world()));
          rt.barrier(t);
          for (int r = 0; r < t.n_pes(); ++r) {
            const int pe = t.translate_pe(r, rt.team_world());
            ASSERT_EQ(ld(rt, &words[pe]),
                      static_cast<std::uint64_t>(round) * 1000 + static_cast<std::uint64_t>(pe))
                << mode << " round " << round << ": PE " << pe
                << "'s put was not there after the barrier";
          }
          rt.barrier(t);  // nobody overwrites a word another member still checks
          if (round % 3 != 0) rt.destroy(t);
        }
        rt.barrier_all();
      }
      rt.free(words);
    });
  }
  unsetenv("SYMMETRA_SYNC");
}

SYMMETRA_INSTANTIATE_PES(TeamTest);

}  // namespace
}  // namespace symmetra::testing
