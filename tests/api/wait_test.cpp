// wait_until / test and their all / any / some / vector forms, with status masks.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "support/local_access.hpp"
#include "support/pe_runner.hpp"

namespace symmetra::testing {
namespace {

class WaitTest : public ::testing::TestWithParam<PeConfig> {};

// PE 0 waits on one word per peer; every peer stores into its own word on PE 0 after a delay.
TEST_P(WaitTest, AllAnySomeWithStatus) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    auto* words = rt.allocate_array<std::int64_t>(n);
    fill(rt, words, static_cast<std::size_t>(n), std::int64_t{0});
    rt.barrier_all();
    if (me != 0) {
      rt.p(&words[me], std::int64_t(10 + me), 0);
    } else {
      std::vector<int> status(n, 0);
      status[0] = 1;  // PE 0's own word never changes: excluded
      const std::size_t any = rt.wait_until_any(words, n, status.data(), Cmp::kGt, std::int64_t{9});
      ASSERT_NE(any, device::kNoIndex);
      EXPECT_GE(any, 1u);
      EXPECT_EQ(ld(rt, &words[any]), static_cast<std::int64_t>(10 + any));
      std::vector<std::size_t> idx(n);
      const std::size_t some = rt.wait_until_some(words, n, idx.data(), status.data(), Cmp::kGe, std::int64_t{10});
      EXPECT_GE(some, 1u);
      for (std::size_t k = 0; k < some; ++k) EXPECT_EQ(ld(rt, &words[idx[k]]), static_cast<std::int64_t>(10 + idx[k]));
      rt.wait_until_all(words, n, status.data(), Cmp::kNe, std::int64_t{0});
      const auto got = ld(rt, words, static_cast<std::size_t>(n));
      for (int k = 1; k < n; ++k) EXPECT_EQ(got[k], 10 + k);
      std::vector<std::int64_t> values(n);
      for (int k = 0; k < n; ++k) values[k] = 10 + k;
      rt.wait_until_all_vector(words, n, status.data(), Cmp::kEq, values.data());
      EXPECT_NE(rt.wait_until_any_vector(words, n, status.data(), Cmp::kEq, values.data()), device::kNoIndex);
      EXPECT_EQ(rt.wait_until_some_vector(words, n, idx.data(), status.data(), Cmp::kEq, values.data()),
                static_cast<std::size_t>(n - 1));
      // Everything excluded: _any returns SIZE_MAX and _some 0 without waiting.
      std::vector<int> none(n, 1);
      EXPECT_EQ(rt.wait_until_any(words, n, none.data(), Cmp::kEq, std::int64_t{-5}), device::kNoIndex);
      EXPECT_EQ(rt.wait_until_some(words, n, idx.data(), none.data(), Cmp::kEq, std::int64_t{-5}), 0u);
      // test family
      EXPECT_TRUE(rt.test_all(words, n, status.data(), Cmp::kGe, std::int64_t{11}));
      EXPECT_FALSE(rt.test_all(words, n, nullptr, Cmp::kGe, std::int64_t{11}));  // words[0] == 0
      EXPECT_EQ(rt.test_any(words, n, nullptr, Cmp::kEq, std::int64_t{0}), 0u);
      EXPECT_EQ(rt.test_any(words, n, nullptr, Cmp::kEq, std::int64_t{-1}), device::kNoIndex);
      EXPECT_EQ(rt.test_some(words, n, idx.data(), nullptr, Cmp::kLt, std::int64_t{12}), 2u);  // words 0 and 1
      EXPECT_TRUE(rt.test_all_vector(words, n, status.data(), Cmp::kLe, values.data()));
      EXPECT_EQ(rt.test_any_vector(words, n, status.data(), Cmp::kLt, values.data()), device::kNoIndex);
      EXPECT_EQ(rt.test_some_vector(words, n, idx.data(), status.data(), Cmp::kGe, values.data()),
                static_cast<std::size_t>(n - 1));
      EXPECT_TRUE(rt.test(&words[n - 1], Cmp::kEq, std::int64_t(10 + n - 1)));
      EXPECT_FALSE(rt.test(&words[0], Cmp::kNe, std::int64_t{0}));
    }
    rt.barrier_all();
    rt.free(words);
  });
}

// Every comparison operator, on a word another PE raises step by step.
TEST_P(WaitTest, EveryComparison) {
  run_pes(GetParam(), [](Runtime& rt) {
    const int me = rt.my_pe(), n = rt.n_pes();
    auto* w = rt.allocate_array<std::uint32_t>(1);
    auto* ack = rt.allocate_array<std::uint32_t>(1);
    st(rt, w, 100u);
    st(rt, ack, 0u);
    rt.barrier_all();
    const int to = (me + 1) % n, from = (me + n - 1) % n;
    struct Step { Cmp cmp; std::uint32_t arg; std::uint32_t store; };
    const Step steps[] = {{Cmp::kNe, 100, 101}, {Cmp::kEq, 102, 102}, {Cmp::kGt, 102, 103},
                          {Cmp::kGe, 104, 104}, {Cmp::kLt, 50, 7},    {Cmp::kLe, 6, 6}};
    std::uint32_t k = 0;
    for (const Step& s : steps) {
      ++k;
      rt.p(w, s.store, to);  // the next PE's word goes to s.store
      rt.wait_until(w, s.cmp, s.arg);
      EXPECT_EQ(ld(rt, w), s.store);
      rt.atomic_set(ack, k, from);   // tell the writer we saw it
      rt.wait_until(ack, Cmp::kGe, k);  // and wait until our reader saw ours
    }
    rt.barrier_all();
    rt.free(ack);
    rt.free(w);
  });
}

SYMMETRA_INSTANTIATE_PES(WaitTest);

}  // namespace
}  // namespace symmetra::testing
