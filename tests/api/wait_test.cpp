// wait_until / test and their all / any / some / vector forms, with status masks.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "symmetra/device/impl/heap_header.hpp"
#include "symmetra/device/impl/host_hooks.hpp"

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
      const std::size_t some =
          rt.wait_until_some(words, n, idx.data(), status.data(), Cmp::kGe, std::int64_t{10});
      EXPECT_GE(some, 1u);
      for (std::size_t k = 0; k < some; ++k)
        EXPECT_EQ(ld(rt, &words[idx[k]]), static_cast<std::int64_t>(10 + idx[k]));
      rt.wait_until_all(words, n, status.data(), Cmp::kNe, std::int64_t{0});
      const auto got = ld(rt, words, static_cast<std::size_t>(n));
      for (int k = 1; k < n; ++k) EXPECT_EQ(got[k], 10 + k);
      std::vector<std::int64_t> values(n);
      for (int k = 0; k < n; ++k) values[k] = 10 + k;
      rt.wait_until_all_vector(words, n, status.data(), Cmp::kEq, values.data());
      EXPECT_NE(rt.wait_until_any_vector(words, n, status.data(), Cmp::kEq, values.data()),
                device::kNoIndex);
      EXPECT_EQ(
          rt.wait_until_some_vector(words, n, idx.data(), status.data(), Cmp::kEq, values.data()),
          static_cast<std::size_t>(n - 1));
      // Everything excluded: _any returns SIZE_MAX and _some 0 without waiting.
      std::vector<int> none(n, 1);
      EXPECT_EQ(rt.wait_until_any(words, n, none.data(), Cmp::kEq, std::int64_t{-5}),
                device::kNoIndex);
      EXPECT_EQ(rt.wait_until_some(words, n, idx.data(), none.data(), Cmp::kEq, std::int64_t{-5}),
                0u);
      // test family
      EXPECT_TRUE(rt.test_all(words, n, status.data(), Cmp::kGe, std::int64_t{11}));
      EXPECT_FALSE(rt.test_all(words, n, nullptr, Cmp::kGe, std::int64_t{11}));  // words[0] == 0
      EXPECT_EQ(rt.test_any(words, n, nullptr, Cmp::kEq, std::int64_t{0}), 0u);
      EXPECT_EQ(rt.test_any(words, n, nullptr, Cmp::kEq, std::int64_t{-1}), device::kNoIndex);
      EXPECT_EQ(rt.test_some(words, n, idx.data(), nullptr, Cmp::kLt, std::int64_t{12}),
                2u);  // words 0 and 1
      EXPECT_TRUE(rt.test_all_vector(words, n, status.data(), Cmp::kLe, values.data()));
      EXPECT_EQ(rt.test_any_vector(words, n, status.data(), Cmp::kLt, values.data()),
                device::kNoIndex);
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
    struct Step {
      Cmp cmp;
      std::uint32_t arg;
      std::uint32_t store;
    };
    const Step steps[] = {{Cmp::kNe, 100, 101}, {Cmp::kEq, 102, 102}, {Cmp::kGt, 102, 103},
                          {Cmp::kGe, 104, 104}, {Cmp::kLt, 50, 7},    {Cmp::kLe, 6, 6}};
    std::uint32_t k = 0;
    for (const Step& s : steps) {
      ++k;
      rt.p(w, s.store, to);  // the next PE's word goes to s.store
      rt.wait_until(w, s.cmp, s.arg);
      EXPECT_EQ(ld(rt, w), s.store);
      rt.atomic_set(ack, k, from);      // tell the writer we saw it
      rt.wait_until(ack, Cmp::kGe, k);  // and wait until our reader saw ours
    }
    rt.barrier_all();
    rt.free(ack);
    rt.free(w);
  });
}

SYMMETRA_INSTANTIATE_PES(WaitTest);

#if !defined(SYMMETRA_API_TEST_GPU)
using device::detail::HeapHeader;
using device::detail::HostWaiter;

std::uint32_t load32(const std::uint32_t& w) {
  return std::atomic_ref<const std::uint32_t>(w).load();
}
std::uint64_t load64(const std::uint64_t& w) {
  return std::atomic_ref<const std::uint64_t>(w).load();
}

// Steps `w` until it counts itself among the header's sleepers (after its spin and yield phases).
// False if the wait's deadline passed first.
bool join_sleepers(HostWaiter& w, const HeapHeader* h) {
  const std::uint32_t before = load32(h->waiters);
  while (load32(h->waiters) == before)
    if (!w.park(w.doorbell())) return false;
  return true;
}

// The CPU waiters' registry in the heap header (host_wait.cpp): joining widens the watched range,
// a leaving waiter keeps the others' part, the last one clears it, and joining waits for the
// watch lock, which keeps a leaving last waiter from clearing the range a joining one just set
// (that lost its wake-ups until a timed re-check, once every 2 ms, now every 100 ms).
TEST(HostWaiterTest, SleepersRegistryAndWatchLock) {
  run_pes(PeConfig{1, Mode::kThreads}, [](Runtime& rt) {
    const device::Context& ctx = rt.device_context();
    HeapHeader* h = device::detail::my_header(ctx);
    auto* words = rt.allocate_array<std::int64_t>(512);
    const auto off = [&](const void* p) {
      return static_cast<std::uint64_t>(static_cast<const std::byte*>(p) - ctx.heap_base);
    };
    {
      auto a = std::make_unique<HostWaiter>(ctx, &words[0], &words[1]);
      ASSERT_TRUE(join_sleepers(*a, h));
      EXPECT_EQ(load32(h->waiters), 1u);
      EXPECT_EQ(load64(h->watch_lo), off(&words[0]));
      EXPECT_EQ(load64(h->watch_hi), off(&words[1]));
      HostWaiter b(ctx, &words[400], &words[401]);
      ASSERT_TRUE(join_sleepers(b, h));
      EXPECT_EQ(load32(h->waiters), 2u);
      EXPECT_EQ(load64(h->watch_lo), off(&words[0]));
      EXPECT_EQ(load64(h->watch_hi), off(&words[401]));
      a.reset();  // b still waits: its words stay watched
      EXPECT_EQ(load32(h->waiters), 1u);
      EXPECT_LE(load64(h->watch_lo), off(&words[400]));
      EXPECT_GE(load64(h->watch_hi), off(&words[401]));
    }
    EXPECT_EQ(load32(h->waiters), 0u);
    EXPECT_EQ(load64(h->watch_hi), 0u);

    // Joining waits while another holds the lock.
    std::atomic_ref<std::uint32_t> lock(h->watch_lock);
    lock.store(1);
    std::atomic<int> joined{0};
    std::thread joiner([&] {
      HostWaiter c(ctx, &words[100], &words[101]);
      joined = join_sleepers(c, h) ? 1 : -1;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(load32(h->waiters), 0u) << "a waiter joined while the watch lock was held";
    EXPECT_EQ(joined.load(), 0);
    lock.store(0);
    joiner.join();
    EXPECT_EQ(joined.load(), 1);
    EXPECT_EQ(load32(h->waiters), 0u);
    EXPECT_EQ(load64(h->watch_hi), 0u);

    // A lock that is never released holds a waiter only until its deadline.
    device::Context short_ctx = ctx;
    short_ctx.timeout_ns = 50'000'000;
    lock.store(1);
    const auto t0 = std::chrono::steady_clock::now();
    {
      HostWaiter d(short_ctx, &words[200], &words[201]);
      while (d.park(d.doorbell())) {
      }
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 10.0) << "a waiter hung on a held watch lock past its deadline";
    EXPECT_EQ(load32(h->waiters), 0u);
    lock.store(0);
    rt.free(words);
  });
}

// put_nbi leaves the wake-up to quiet(), which rings a PE sleeping on the words stored and no
// other. PE 1 sleeps as wait_until would, on words[0], but without polling the word while PE 0's
// plain stores land in it (a data race, for ThreadSanitizer); it only watches its doorbell, which
// counts the rings (its 100 ms re-check does not ring), with a 5 s deadline.
TEST(HostWaiterTest, QuietWakesWhoSleepsOnPutNbiWords) {
  for (Mode mode : {Mode::kThreads, Mode::kProcesses}) {
    run_pes(PeConfig{2, mode}, [](Runtime& rt) {
      const device::Context& ctx = rt.device_context();
      auto* words = rt.allocate_array<std::int64_t>(1024);
      fill(rt, words, 1024, std::int64_t{0});
      rt.barrier_all();
      const std::int64_t other = 1000 + static_cast<std::int64_t>(run_seed() % 1000),
                         value = other + 1;
      if (rt.my_pe() == 1) {
        device::Context five_s = ctx;
        five_s.timeout_ns = 5'000'000'000;
        HeapHeader* h = device::detail::my_header(ctx);
        HostWaiter w(five_s, &words[0], &words[1]);
        ASSERT_TRUE(join_sleepers(w, h));
        const std::uint32_t bell = w.doorbell();
        bool rung = true;
        while (w.doorbell() == bell)
          if (!w.park(bell)) {
            rung = false;
            break;
          }
        EXPECT_TRUE(rung) << "PE 1 was not rung within 5 s";
      } else {
        const HeapHeader* h1 = device::detail::peer_header(ctx, 1);
        // Asleep on words[0]: counted, and that word's range published.
        const auto off = static_cast<std::uint64_t>(reinterpret_cast<const std::byte*>(&words[0]) -
                                                    ctx.heap_base);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (load32(h1->waiters) == 0 || load64(h1->watch_lo) != off ||
               load64(h1->watch_hi) != off + 8) {
          ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "PE 1 never went to sleep";
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        const std::uint32_t bell = load32(h1->doorbell);
        rt.putmem_nbi(&words[512], &other, sizeof(other), 1);  // not what PE 1 waits on
        rt.quiet();
        EXPECT_EQ(load32(h1->doorbell), bell) << "a put_nbi to unwatched words rang";
        rt.putmem_nbi(&words[0], &value, sizeof(value), 1);
        rt.quiet();
        EXPECT_GT(load32(h1->doorbell), bell) << "quiet did not ring the PE sleeping on the words";
      }
      rt.barrier_all();
      if (rt.my_pe() == 1) {
        EXPECT_EQ(ld(rt, &words[0]), value);
        EXPECT_EQ(ld(rt, &words[512]), other);
      }
      rt.barrier_all();
      rt.free(words);
    });
  }
}
#endif

}  // namespace
}  // namespace symmetra::testing
