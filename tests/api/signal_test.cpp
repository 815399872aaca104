// put_signal with set and add, signal_fetch and signal_wait_until: data is visible once the
// signal is, over many rounds (no stale data).
#include <gtest/gtest.h>

#include <vector>

#include "support/local_access.hpp"
#include "support/pe_runner.hpp"

namespace symmetra::testing {
namespace {

class SignalTest : public ::testing::TestWithParam<PeConfig> {};

TEST_P(SignalTest, RingWithSetSignal) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    constexpr std::size_t kN = 1000;
    auto* buf = rt.allocate_array<std::int32_t>(kN);
    auto* sig = rt.allocate_array<std::uint64_t>(1);
    auto* ack = rt.allocate_array<std::uint64_t>(1);
    st(rt, sig, std::uint64_t{0});
    st(rt, ack, std::uint64_t{0});
    rt.barrier_all();
    auto rng = pe_rng(rt);
    const int to = (me + 1) % n, from = (me + n - 1) % n;
    std::vector<std::int32_t> src(kN);
    for (std::uint64_t round = 1; round <= 100; ++round) {
      // Every PE's src this round derives from (seed, pe, round), recomputed by the receiver.
      std::mt19937_64 mine(run_seed() ^ (round * 131 + static_cast<std::uint64_t>(me)));
      for (auto& x : src) x = static_cast<std::int32_t>(mine() | 1);
      if (round > 1) rt.signal_wait_until(ack, Cmp::kGe, round - 1);  // `to` consumed last round
      rt.put_signal(buf, src.data(), kN, sig, round, SignalOp::kSet, to);
      EXPECT_EQ(rt.signal_wait_until(sig, Cmp::kEq, round), round);
      std::mt19937_64 theirs(run_seed() ^ (round * 131 + static_cast<std::uint64_t>(from)));
      const auto got = ld(rt, buf, kN);
      for (std::size_t i = 0; i < kN; ++i)
        ASSERT_EQ(got[i], static_cast<std::int32_t>(theirs() | 1))
            << "round " << round << " element " << i;
      rt.atomic_set(ack, round, from);
    }
    (void)rng;
    rt.barrier_all();
    rt.free(ack);
    rt.free(sig);
    rt.free(buf);
  });
}

TEST_P(SignalTest, AddSignalCountsEverySender) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    auto* slots = rt.allocate_array<std::int64_t>(n);
    auto* sig = rt.allocate_array<std::uint64_t>(1);
    st(rt, sig, std::uint64_t{0});
    fill(rt, slots, static_cast<std::size_t>(n), std::int64_t{-1});
    rt.barrier_all();
    const std::int64_t value = 1000 * me + 7;
    for (int pe = 0; pe < n; ++pe)
      rt.put_signal_nbi(&slots[me], &value, 1, sig, std::uint64_t(me + 1), SignalOp::kAdd, pe);
    const std::uint64_t total = static_cast<std::uint64_t>(n) * (n + 1) / 2;
    EXPECT_EQ(rt.signal_wait_until(sig, Cmp::kGe, total), total);
    EXPECT_EQ(rt.signal_fetch(sig), total);
    const auto got = ld(rt, slots, static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) EXPECT_EQ(got[k], 1000 * k + 7);
    rt.barrier_all();
    rt.free(sig);
    rt.free(slots);
  });
}

SYMMETRA_INSTANTIATE_PES(SignalTest);

}  // namespace
}  // namespace symmetra::testing
