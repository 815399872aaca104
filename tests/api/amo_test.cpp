// Atomics: every operation, contended from every PE, checked against exact results.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "support/local_access.hpp"
#include "support/pe_runner.hpp"

namespace symmetra::testing {
namespace {

class AmoTest : public ::testing::TestWithParam<PeConfig> {};

template <class T>
void contended_adds(Runtime& rt) {
  const int me = rt.my_pe(), n = rt.n_pes();
  auto* counter = rt.allocate_array<T>(1);
  st(rt, counter, T(1000));
  rt.barrier_all();
  constexpr int kRounds = 200;
  // Everyone adds to every PE: fetch_add, add, inc, fetch_inc.
  std::vector<T> fetched;
  for (int r = 0; r < kRounds; ++r) {
    for (int pe = 0; pe < n; ++pe) {
      fetched.push_back(rt.atomic_fetch_add(counter, T(me + 1), pe));
      rt.atomic_add(counter, T(2), pe);
      rt.atomic_inc(counter, pe);
      fetched.push_back(rt.atomic_fetch_inc(counter, pe));
    }
  }
  rt.barrier_all();
  T expect = T(1000);
  for (int p = 0; p < n; ++p) expect += T(kRounds) * T(p + 1 + 2 + 1 + 1);
  EXPECT_EQ(ld(rt, counter), expect);
  EXPECT_EQ(rt.atomic_fetch(counter, (me + 1) % n), expect);
  for (T v : fetched) {
    EXPECT_GE(v, T(1000));
    EXPECT_LT(v, expect);
  }
  rt.barrier_all();
  rt.free(counter);
}

TEST_P(AmoTest, ContendedAddsInt32) {
  run_pes(GetParam(), [](Runtime& rt) { contended_adds<std::int32_t>(rt); });
}
TEST_P(AmoTest, ContendedAddsUint64) {
  run_pes(GetParam(), [](Runtime& rt) { contended_adds<std::uint64_t>(rt); });
}

// compare_swap and swap: every PE claims distinct tickets from PE 0; no ticket is lost or doubled.
TEST_P(AmoTest, CompareSwapTicketsAreUnique) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int n = rt.n_pes();
    auto* next = rt.allocate_array<std::int64_t>(1);
    auto* claimed = rt.allocate_array<std::int64_t>(64 * n);
    st(rt, next, std::int64_t{0});
    rt.barrier_all();
    std::vector<std::int64_t> mine;
    while (mine.size() < 64) {
      const std::int64_t seen = rt.atomic_fetch(next, 0);
      if (rt.atomic_compare_swap(next, seen, seen + 1, 0) == seen) mine.push_back(seen);
    }
    for (std::size_t i = 0; i < mine.size(); ++i) rt.p(&claimed[rt.my_pe() * 64 + i], mine[i], 0);
    rt.barrier_all();
    if (rt.my_pe() == 0) {
      const auto got = ld(rt, claimed, 64 * static_cast<std::size_t>(n));
      std::set<std::int64_t> all(got.begin(), got.end());
      EXPECT_EQ(all.size(), static_cast<std::size_t>(64 * n));
      EXPECT_EQ(*all.begin(), 0);
      EXPECT_EQ(*all.rbegin(), 64 * n - 1);
      EXPECT_EQ(ld(rt, next), 64 * n);
    }
    // swap: a token passed around; the values returned are each PE's previous token.
    auto* token = rt.allocate_array<std::int32_t>(1);
    st(rt, token, -1);
    rt.barrier_all();
    const std::int32_t old = rt.atomic_swap(token, rt.my_pe(), 0);
    std::vector<std::int32_t> olds(n);
    auto* olds_sym = rt.allocate_array<std::int32_t>(n);
    rt.p(&olds_sym[rt.my_pe()], old, 0);
    rt.barrier_all();
    if (rt.my_pe() == 0) {
      // The swaps form one chain: -1 and every PE but the last swapped in appear exactly once.
      const auto got = ld(rt, olds_sym, static_cast<std::size_t>(n));
      std::multiset<std::int32_t> seen(got.begin(), got.end());
      seen.insert(ld(rt, token));
      std::multiset<std::int32_t> want;
      for (int p = -1; p < n; ++p) want.insert(p);
      EXPECT_EQ(seen, want);
    }
    rt.barrier_all();
    rt.free(olds_sym);
    rt.free(token);
    rt.free(claimed);
    rt.free(next);
  });
}

// and / or / xor: each PE owns distinct bits; the results are exact.
TEST_P(AmoTest, BitwiseOperations) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    auto* w = rt.allocate_array<std::uint64_t>(3);
    st(rt, w,
       std::vector<std::uint64_t>{0, ~std::uint64_t{0},
                                  0x5555555555555555ull});  // or, and, xor targets
    rt.barrier_all();
    const std::uint64_t bit = std::uint64_t{1} << (me * 3 % 64);
    for (int pe = 0; pe < n; ++pe) {
      if (me % 2 == 0) {
        rt.atomic_or(&w[0], bit, pe);
        rt.atomic_and(&w[1], ~bit, pe);
        rt.atomic_xor(&w[2], bit, pe);
      } else {
        (void)rt.atomic_fetch_or(&w[0], bit, pe);
        (void)rt.atomic_fetch_and(&w[1], ~bit, pe);
        (void)rt.atomic_fetch_xor(&w[2], bit, pe);
      }
    }
    rt.barrier_all();
    std::uint64_t all = 0;
    for (int p = 0; p < n; ++p) all |= std::uint64_t{1} << (p * 3 % 64);
    const auto got = ld(rt, w, 3);
    EXPECT_EQ(got[0], all);
    EXPECT_EQ(got[1], ~all);
    EXPECT_EQ(got[2], 0x5555555555555555ull ^ all);
    rt.barrier_all();
    rt.free(w);
  });
}

// fetch / set / swap on float and double.
TEST_P(AmoTest, FloatingPointFetchSetSwap) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    auto* f = rt.allocate_array<float>(n);
    auto* d = rt.allocate_array<double>(n);
    rt.barrier_all();
    const int to = (me + 1) % n;
    rt.atomic_set(&f[me], 0.25f + me, to);
    rt.atomic_set(&d[me], 1e100 * (me + 1), to);
    rt.barrier_all();
    const int from = (me + n - 1) % n;
    EXPECT_EQ(rt.atomic_fetch(&f[from], me), 0.25f + from);
    EXPECT_EQ(rt.atomic_swap(&d[from], -3.5, me), 1e100 * (from + 1));
    EXPECT_EQ(ld(rt, &d[from]), -3.5);
    rt.barrier_all();
    rt.free(d);
    rt.free(f);
  });
}

// Floating-point add and fetch-add (float, double) on one PE's counters from every PE: halves and
// quarters, exact in both types, so the totals are exact whatever the order; each PE's fetched
// old values are increasing, and the last it saw is below the total.
TEST_P(AmoTest, FloatingPointAdd) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    auto* f = rt.allocate_array<float>(2);
    auto* d = rt.allocate_array<double>(2);
    for (int i = 0; i < 2; ++i) {  // through the API: the heap may be device memory
      rt.atomic_set(&f[i], 0.0f, me);
      rt.atomic_set(&d[i], 0.0, me);
    }
    rt.barrier_all();
    constexpr int kRounds = 50;
    const int target = n - 1;
    float last_f = -1;
    double last_d = -1;
    for (int i = 0; i < kRounds; ++i) {
      rt.atomic_add(&f[0], 0.5f * (me + 1), target);
      rt.atomic_add(&d[0], 0.25 * (me + 1), target);
      const float old_f = rt.atomic_fetch_add(&f[1], 0.5f, target);
      const double old_d = rt.atomic_fetch_add(&d[1], 0.25, target);
      EXPECT_GT(old_f, last_f);
      EXPECT_GT(old_d, last_d);
      last_f = old_f, last_d = old_d;
    }
    rt.barrier_all();
    const double ranks = n * (n + 1) / 2.0;
    EXPECT_EQ(rt.atomic_fetch(&f[0], target), static_cast<float>(kRounds * 0.5 * ranks));
    EXPECT_EQ(rt.atomic_fetch(&d[0], target), kRounds * 0.25 * ranks);
    EXPECT_EQ(rt.atomic_fetch(&f[1], target), 0.5f * kRounds * n);
    EXPECT_EQ(rt.atomic_fetch(&d[1], target), 0.25 * kRounds * n);
    EXPECT_LT(last_f, 0.5f * kRounds * n);
    rt.barrier_all();
    rt.free(d);
    rt.free(f);
  });
}

SYMMETRA_INSTANTIATE_PES(AmoTest);

}  // namespace
}  // namespace symmetra::testing
