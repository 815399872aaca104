// CoLaunch (src/backend/cuda/co_launch.hpp), host logic only, no GPU: a call's launches all
// come before any member returns from it; keys come back for new batches; a member that never
// comes is named after the timeout; disjoint batches do not wait for each other.
#include "backend/cuda/co_launch.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace symmetra::detail {
namespace {

constexpr std::uint64_t kSecond = 1'000'000'000ull;

struct Event {
  int call, pe;
  bool returned;  // false: its launch ran; true: join returned
};

TEST(CoLaunch, EveryLaunchOfACallPrecedesAnyReturnFromIt) {
  constexpr int kPes = 4, kCalls = 3000;
  CoLaunch co;
  std::mutex mu;
  std::vector<Event> log;
  std::vector<int> bad(kPes, 0);
  std::vector<std::thread> threads;
  const std::vector<int> members{0, 1, 2, 3};
  for (int pe = 0; pe < kPes; ++pe)
    threads.emplace_back([&, pe] {
      std::mt19937 rng(static_cast<unsigned>(pe) * 7919u + 1);
      for (int call = 0; call < kCalls; ++call) {
        if (rng() % 8 == 0) std::this_thread::yield();  // vary who comes last
        std::string missing;
        const int rc = co.join(
            {0, 0, 0, static_cast<std::uint64_t>(call)}, members, pe,
            [&] {
              std::lock_guard<std::mutex> l(mu);
              log.push_back({call, pe, false});
              return call * 10 + pe;
            },
            10 * kSecond, &missing);
        bad[pe] += rc != call * 10 + pe;
        std::lock_guard<std::mutex> l(mu);
        log.push_back({call, pe, true});
      }
    });
  for (auto& t : threads) t.join();
  for (int pe = 0; pe < kPes; ++pe)
    EXPECT_EQ(bad[pe], 0) << "pe " << pe << " got another launch's result";
  // Per call: count launches seen before the first return.
  std::vector<int> launched(kCalls, 0);
  std::vector<bool> returned(kCalls, false);
  ASSERT_EQ(log.size(), static_cast<std::size_t>(2 * kPes * kCalls));
  for (const Event& e : log) {
    if (e.returned) {
      if (!returned[e.call])
        ASSERT_EQ(launched[e.call], kPes)
            << "call " << e.call << ": pe " << e.pe << " returned early";
      returned[e.call] = true;
    } else {
      ASSERT_FALSE(returned[e.call])
          << "call " << e.call << ": pe " << e.pe << " launched after a return";
      ++launched[e.call];
    }
  }
}

TEST(CoLaunch, AKeyComesBackForANewBatch) {
  CoLaunch co;
  const std::vector<int> members{3, 5};
  for (int round = 0; round < 3; ++round) {  // the same key each round: a team remade in the slot
    std::vector<int> rc(2, -7);
    std::thread a([&] {
      std::string m;
      rc[0] = co.join(
          {1, 2, 3, 0}, members, 3, [] { return 0; }, kSecond, &m);
    });
    std::thread b([&] {
      std::string m;
      rc[1] = co.join(
          {1, 2, 3, 0}, members, 5, [] { return 0; }, kSecond, &m);
    });
    a.join();
    b.join();
    EXPECT_EQ(rc[0], 0) << "round " << round;
    EXPECT_EQ(rc[1], 0) << "round " << round;
  }
}

TEST(CoLaunch, NamesTheMembersThatNeverCame) {
  CoLaunch co;
  std::string missing;
  int launches = 0;
  const int rc = co.join(
      {0, 4, 0, 9}, {0, 1, 2}, 1, [&] { return ++launches; }, 50'000'000ull, &missing);
  EXPECT_EQ(rc, -1);
  EXPECT_EQ(missing, "0, 2");
  EXPECT_EQ(launches, 0) << "nothing may be launched before every member joined";
}

TEST(CoLaunch, DisjointBatchesDoNotWaitForEachOther) {
  CoLaunch co;
  // Team {0, 1} completes while team {2, 3} (same slot, other first PE) has only PE 2.
  std::string m2;
  std::thread lone([&] {
    EXPECT_EQ(co.join(
                  {0, 1, 2, 0}, {2, 3}, 2, [] { return 0; }, 2 * kSecond, &m2),
              0);
  });
  std::vector<int> rc(2, -7);
  std::thread a([&] {
    std::string m;
    rc[0] = co.join(
        {0, 1, 0, 0}, {0, 1}, 0, [] { return 0; }, kSecond, &m);
  });
  std::thread b([&] {
    std::string m;
    rc[1] = co.join(
        {0, 1, 0, 0}, {0, 1}, 1, [] { return 0; }, kSecond, &m);
  });
  a.join();
  b.join();
  EXPECT_EQ(rc[0], 0);
  EXPECT_EQ(rc[1], 0);
  std::string m3;
  EXPECT_EQ(co.join(
                {0, 1, 2, 0}, {2, 3}, 3, [] { return 0; }, kSecond, &m3),
            0);
  lone.join();
}

}  // namespace
}  // namespace symmetra::detail
