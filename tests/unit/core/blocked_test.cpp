// core/blocked.hpp: a marked call is reported with its thread's name, its PE and how long it has
// lasted, once it has lasted the minimum; marks nest; a thread's slot is handed back when it
// ends; and a fatal error (host_fatal) prints the marks that have lasted a second.
#include "core/blocked.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "symmetra/device/context.hpp"
#include "symmetra/device/impl/host_hooks.hpp"

namespace symmetra::detail {
namespace {

using namespace std::chrono_literals;

// A thread named `name` that holds a mark until the object ends.
class MarkedThread {
 public:
  MarkedThread(const char* name, const char* what, int pe) {
    thread_ = std::thread([=, this] {
      name_this_thread(name);
      const BlockedIn blocked(what, pe);
      marked_.store(true);
      while (!release_.load()) std::this_thread::sleep_for(1ms);
    });
    while (!marked_.load()) std::this_thread::sleep_for(1ms);
  }
  ~MarkedThread() {
    release_.store(true);
    thread_.join();
  }

 private:
  std::atomic<bool> marked_{false}, release_{false};
  std::thread thread_;
};

TEST(Blocked, NamesTheThreadTheCallAndThePeOnceItHasLasted) {
  const MarkedThread t("the test's server", "a slow call", 3);
  EXPECT_EQ(blocked_threads(10'000'000'000ull).find("a slow call"), std::string::npos);
  std::this_thread::sleep_for(60ms);
  const std::string r = blocked_threads(50'000'000);
  EXPECT_NE(r.find("the test's server has been in a slow call (PE 3) for 0."), std::string::npos)
      << r;
}

TEST(Blocked, TheInnermostMarkIsReportedAndTheOuterComesBack) {
  const std::uint64_t any = 0;
  {
    const BlockedIn outer("the outer call", -1);
    {
      const BlockedIn inner("the inner call", 5);
      const std::string r = blocked_threads(any);
      EXPECT_NE(r.find("the inner call (PE 5)"), std::string::npos) << r;
      EXPECT_EQ(r.find("the outer call"), std::string::npos) << r;
    }
    const std::string r = blocked_threads(any);
    EXPECT_NE(r.find("a thread has been in the outer call for"), std::string::npos) << r;
  }
  EXPECT_EQ(blocked_threads(any).find("call"), std::string::npos);
}

TEST(Blocked, ListsEveryBlockedThreadOldestFirst) {
  const MarkedThread a("thread a", "call a", 0);
  std::this_thread::sleep_for(5ms);
  const MarkedThread b("thread b", "call b", 1);
  const std::string r = with_blocked_threads("it timed out", 0);
  const auto at_a = r.find("thread a has been in call a (PE 0)");
  const auto at_b = r.find("thread b has been in call b (PE 1)");
  EXPECT_EQ(r.rfind("it timed out (blocked: ", 0), 0u) << r;
  EXPECT_NE(at_a, std::string::npos) << r;
  EXPECT_NE(at_b, std::string::npos) << r;
  EXPECT_LT(at_a, at_b) << r;
  EXPECT_EQ(with_blocked_threads("nothing blocked"), std::string("nothing blocked"))
      << "a minimum of 1 s: the marks above are younger";
}

// Two marks with one hint and one without: the hint comes once, after the marks; a nested mark
// without a hint hides its outer mark's, which comes back at its end.
TEST(Blocked, AHintComesOnceAfterTheMarks) {
  constexpr const char* kHint = "run with MORE_QUEUES=32";
  std::atomic<bool> marked{false}, release{false};
  auto hinted = [&](int pe) {
    return std::thread([&, pe] {
      const BlockedIn b("a queued copy", pe, kHint);
      marked.store(true);
      while (!release.load()) std::this_thread::sleep_for(1ms);
    });
  };
  std::thread a = hinted(0);
  while (!marked.load()) std::this_thread::sleep_for(1ms);
  marked.store(false);
  std::thread b = hinted(1);
  while (!marked.load()) std::this_thread::sleep_for(1ms);
  {
    const BlockedIn c("a plain call", 2);
    const std::string r = blocked_threads(0);
    const auto at = r.find(std::string(". ") + kHint);
    EXPECT_NE(at, std::string::npos) << r;
    EXPECT_EQ(r.find(kHint, at + 3), std::string::npos) << "the hint once: " << r;
    EXPECT_GT(at, r.find("a plain call (PE 2)")) << "after the marks: " << r;
  }
  release.store(true);
  a.join();
  b.join();
  {
    const BlockedIn outer("an outer call", 3, kHint);
    {
      const BlockedIn inner("an inner call", 3);
      EXPECT_EQ(blocked_threads(0).find(kHint), std::string::npos);
    }
    EXPECT_NE(blocked_threads(0).find(kHint), std::string::npos);
  }
}

// More threads than the table has slots, one after another: each hands its slot back.
TEST(Blocked, ThreadsThatEndedLeaveNothingBehind) {
  for (int i = 0; i < 1200; ++i) std::thread([] { const BlockedIn b("a short call", 0); }).join();
  const MarkedThread t("the last thread", "its call", 2);
  EXPECT_NE(blocked_threads(0).find("the last thread has been in its call (PE 2)"),
            std::string::npos);
  EXPECT_EQ(blocked_threads(0).find("a short call"), std::string::npos);
}

TEST(BlockedDeathTest, AFatalErrorPrintsTheMarksOfASecondOrMore) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        const MarkedThread t("the proxy thread", "a staging copy", 4);
        std::this_thread::sleep_for(1100ms);
        device::Context ctx{};
        ctx.my_pe = 1;
        device::detail::host_fatal(ctx, "quiet", "the proxy thread took no request");
      },
      "\\[pe 1\\] quiet: the proxy thread took no request\n\\[pe 1\\] blocked: the proxy thread "
      "has been in a staging copy \\(PE 4\\) for 1\\.");
}

}  // namespace
}  // namespace symmetra::detail
